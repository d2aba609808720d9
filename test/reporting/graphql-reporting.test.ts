import { type BootstrapResult, type MemberPermission } from '../../src/services/access/index.js';
import { foldReportingDeltas } from '../../src/services/reporting/index.js';
import { withConnection } from '../../src/services/shared/index.js';
import {
  DecisionFunnelDocument,
  PersonDocument,
  PersonsDocument,
  ReasonCodeBreakdownDocument,
  ReportingAnalyticsDocument,
  ReportingOverviewDocument,
  TimeToDecisionDocument,
  UsageReportDocument,
  type ReportingFilter,
} from '../graphql/generated.js';
import { gql } from '../support/graphql.js';
import { signedInMember } from '../support/members.js';
import type { TestServer } from '../support/test-server.js';
import { withTestAccount } from '../support/account.js';
import { createVerification, keyOf } from '../support/factories.js';

let server: TestServer;
let account: BootstrapResult;
let owner: string;
withTestAccount((t) => {
  ({ server, account } = t);
  owner = account.member.session_token;
});

const member = async (permissions: MemberPermission[], environments: ('sandbox' | 'live')[]): Promise<string> =>
  (await signedInMember(server, account, permissions, environments)).token;

const SEEDED = 1500;
const prefix = `vs_rpt${Date.now().toString(36)}_`;
let flowA: string;
let flowB: string;
let tagA: string;
let tagB: string;

/** The seeded rows whose sequence number g satisfies `g % k = r`, as SQL. */
const every = (k: number, r = 0) => `id like '${prefix}%' and substr(id, ${prefix.length + 1})::int % ${k} = ${r}`;

/**
 * SEEDED verifications cloned from one real session with varied days (40 back), flows,
 * statuses, deciders, reason codes, decision times; then tags. Through the triggers only.
 */
async function seed(): Promise<void> {
  const template = await createVerification(server, account, 'sandbox');
  await server.sql(
    `insert into verifications
     select r.* from verifications t cross join generate_series(1, $3::int) g
     cross join lateral (select now() - make_interval(secs => ((g * 7919) % 3456000)::double precision) as c,
                                (array['pending','processing','approved','rejected','manual_review','expired'])[1 + g % 6] as s) x
     cross join lateral jsonb_populate_record(null::verifications, to_jsonb(t) || jsonb_build_object(
       'id', $2::text || g, 'created_at', x.c, 'updated_at', x.c, 'status', x.s,
       'flow_id', case when g % 3 = 0 then $4 else $5 end,
       'change_reason', case when x.s in ('approved', 'rejected') then (case when g % 4 = 0 then 'reviewer' when g % 10 = 1 then 'auto_policy' else 'engine' end)
                             when x.s in ('manual_review', 'expired') then 'engine' end,
       'decided_at', case when x.s in ('approved', 'rejected', 'manual_review', 'expired') then x.c + make_interval(secs => (1 + (g * 31) % 9000)::double precision) end,
       'submitted_at', case when x.s <> 'pending' and (x.s <> 'expired' or g % 2 = 0) then x.c end,
       'reason_codes', case when g % 5 = 0 then '["SELFIE_MISMATCH"]'::jsonb when g % 7 = 0 then '["ID_INVALID", "EXPIRY_UNREADABLE"]'::jsonb else '[]'::jsonb end,
       'email_fingerprint', null, 'reference_fingerprint', null, 'identity', null)) r
     where t.id = $1`,
    [template.id, prefix, SEEDED, flowB, flowA],
  );
  await server.sql(
    `insert into verification_tags (verification_id, tag_id, created_at) select id, $1, now() from verifications where ${every(4)}`,
    [tagA],
  );
  await server.sql(
    `insert into verification_tags (verification_id, tag_id, created_at) select id, $1, now() from verifications where ${every(9, 1)}`,
    [tagB],
  );
}

/** Status changes, reason codes added, tags taken off and put on, flows moved, days moved, rows deleted. */
async function mutate(): Promise<void> {
  await server.sql(
    `update verifications set status = 'approved', change_reason = 'reviewer', decided_at = created_at + interval '3 hours' where status = 'manual_review' and ${every(2)}`,
  );
  await server.sql(`update verifications set reason_codes = reason_codes || '{ALREADY_VERIFIED}' where ${every(11)}`);
  await server.sql(
    `delete from verification_tags where tag_id = $1 and verification_id in (select id from verifications where ${every(8)})`,
    [tagA],
  );
  await server.sql(
    `insert into verification_tags (verification_id, tag_id, created_at) select id, $1, now() from verifications where ${every(13, 2)} on conflict do nothing`,
    [tagA],
  );
  await server.sql(`update verifications set flow_id = $1 where ${every(17)}`, [flowB]);
  await server.sql(`update verifications set created_at = created_at - interval '1 day' where ${every(19)}`);
  await server.sql(
    `delete from verification_tags where verification_id in (select id from verifications where ${every(23)})`,
  );
  await server.sql(`delete from verifications where ${every(23)}`);
}

const fold = () => withConnection(server.runtime.orm, (sql) => foldReportingDeltas(sql));

/** The plain SQL over the same rows: the account's verifications narrowed like the filter. */
function whereOf(filter: ReportingFilter): { sql: string; params: unknown[] } {
  const params: unknown[] = [account.merchant.id, filter.environment ? [filter.environment] : ['sandbox', 'live']];
  const parts = ['v.merchant_id = $1', 'v.mode = any($2::text[])'];
  if (filter.since) parts.push(`v.created_at >= $${params.push(filter.since)}`);
  if (filter.flowId) parts.push(`v.flow_id = $${params.push(filter.flowId)}`);
  if (filter.tagId)
    parts.push(
      `exists (select 1 from verification_tags vt where vt.verification_id = v.id and vt.tag_id = $${params.push(filter.tagId)})`,
    );
  return { sql: parts.join(' and '), params };
}

async function expectExact(filter: ReportingFilter): Promise<void> {
  const where = whereOf(filter);
  const [overview, reasons, funnel, times] = await Promise.all([
    gql(server, owner, ReportingOverviewDocument, { filter }),
    gql(server, owner, ReasonCodeBreakdownDocument, { filter }),
    gql(server, owner, DecisionFunnelDocument, { filter }),
    gql(server, owner, TimeToDecisionDocument, { filter }),
  ]);
  const byStatus = await server.sql<{ status: string; n: number }>(
    `select status, count(*)::int as n from verifications v where ${where.sql} group by status`,
    where.params,
  );
  const counted = Object.fromEntries(
    byStatus.map((r) => [r.status === 'manual_review' ? 'manualReview' : r.status, r.n]),
  );
  const o = overview.body.data!.reportingOverview;
  expect({ ...o.byStatus }).toEqual({
    pending: 0,
    processing: 0,
    approved: 0,
    rejected: 0,
    manualReview: 0,
    expired: 0,
    ...counted,
  });
  const [deciders] = await server.sql<{ reviewer: number; automated: number }>(
    `select count(*) filter (where change_reason = 'reviewer')::int as reviewer, count(*) filter (where change_reason <> 'reviewer')::int as automated
       from verifications v where ${where.sql} and status in ('approved', 'rejected')`,
    where.params,
  );
  expect({ reviewer: o.decidedByReviewer, automated: o.automated }).toEqual(deciders);

  const reasonRows = await server.sql<{ reason: string; n: number }>(
    `select r as reason, count(*)::int as n from verifications v, unnest(v.reason_codes) r where ${where.sql} group by r`,
    where.params,
  );
  expect(Object.fromEntries(reasons.body.data!.reasonCodeBreakdown.map((r) => [r.reasonCode, r.count]))).toEqual(
    Object.fromEntries(reasonRows.map((r) => [r.reason, r.n])),
  );

  const [f] = await server.sql<{ created: number; submitted: number; decided: number }>(
    `select count(*)::int as created, count(*) filter (where submitted_at is not null)::int as submitted, count(*) filter (where status in ('approved', 'rejected'))::int as decided
       from verifications v where ${where.sql}`,
    where.params,
  );
  expect(funnel.body.data!.decisionFunnel).toEqual(f);

  for (const who of ['engine', 'reviewer'] as const) {
    const [exact] = await server.sql<{ n: number; p50: number | null; p90: number | null }>(
      `select count(*)::int as n, percentile_disc(0.5) within group (order by s) as p50, percentile_disc(0.9) within group (order by s) as p90
         from (select extract(epoch from decided_at - created_at)::float8 as s from verifications v
                where ${where.sql} and status in ('approved', 'rejected') and decided_at is not null
                  and (change_reason = 'reviewer') = ${who === 'reviewer'}) d`,
      where.params,
    );
    const got = times.body.data!.timeToDecision[who];
    expect(got.count).toBe(exact!.n);
    if (exact!.n > 0) {
      // 5% buckets answered by their midpoint: within 2.5% of the exact nearest-rank percentile.
      expect(Math.abs(got.p50Seconds! / exact!.p50! - 1)).toBeLessThan(0.025);
      expect(Math.abs(got.p90Seconds! / exact!.p90! - 1)).toBeLessThan(0.025);
    }
  }
}

const midday = (daysAgo: number) =>
  new Date(
    Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate() - daysAgo, 13, 17),
  ).toISOString();
const filters = (): ReportingFilter[] => [
  {},
  { environment: 'sandbox' as never },
  { flowId: flowA },
  { tagId: tagA },
  { flowId: flowB, tagId: tagB },
  { since: midday(10) },
  { since: midday(25), tagId: tagA, flowId: flowA },
];

beforeAll(async () => {
  const sk = keyOf(account, 'sandbox');
  const flow = (name: string) =>
    server.request('/v1/flows', { token: sk, body: { name, steps: [{ type: 'document' }] } });
  flowA = (await flow('Reporting A')).body.id;
  flowB = (await flow('Reporting B')).body.id;
  tagA = (await server.request('/v1/tags', { token: sk, body: { name: 'Reporting high risk' } })).body.id;
  tagB = (await server.request('/v1/tags', { token: sk, body: { name: 'Reporting vip' } })).body.id;
  await seed();
});

describe('reporting numbers equal a plain count(*) ... group by over the same rows', () => {
  const allExact = () => Promise.all(filters().map(expectExact));

  it('with the deltas not folded yet', async () => {
    await allExact();
  }, 180_000);

  it('after folding, and after status, reason, tag, flow, day changes and deletes on top', async () => {
    await fold();
    const [{ pending }] = await server.sql<{ pending: number }>(
      `select count(*)::int as pending from reporting_deltas where merchant_id = $1`,
      [account.merchant.id],
    );
    expect(pending).toBe(0);
    await allExact();
    await mutate();
    await allExact();
    await fold();
    await allExact();
  }, 300_000);

  it('analytics: each UTC day equals count(*) group by day, status; REST gives the same figures', async () => {
    const since = midday(35);
    const res = await gql(server, owner, ReportingAnalyticsDocument, { filter: { since } });
    const rows = await server.sql<{ day: string; n: number; reviewer: number }>(
      `select to_char((created_at at time zone 'UTC')::date, 'YYYY-MM-DD') as day, count(*)::int as n,
              count(*) filter (where status in ('approved', 'rejected') and change_reason = 'reviewer')::int as reviewer
         from verifications where merchant_id = $1 and created_at >= $2 group by 1`,
      [account.merchant.id, since],
    );
    const days = res.body.data!.reportingAnalytics.days;
    for (const r of rows)
      expect(days.find((d) => d.day === r.day)).toMatchObject({ total: r.n, decidedByReviewer: r.reviewer });
    expect(days.reduce((a, d) => a + d.total, 0)).toBe(rows.reduce((a, r) => a + r.n, 0));
    const rest = await server.request(`/v1/console/analytics?since=${encodeURIComponent(since)}`, { token: owner });
    expect(rest.body.days.map((d: { day: string; total: number }) => [d.day, d.total])).toEqual(
      days.map((d) => [d.day, d.total]),
    );
    const overview = await gql(server, owner, ReportingOverviewDocument, {});
    const restOverview = await server.request('/v1/console/overview', { token: owner });
    expect(overview.body.data!.reportingOverview.total).toBe(restOverview.body.total);
    expect(overview.body.data!.reportingOverview.automationRate).toBe(restOverview.body.automation_rate);
  });

  it('usage: per check type and environment equal to count(*) over usage_records', async () => {
    await server.sql(
      `insert into usage_records (id, merchant_id, created_at, mode, updated_at, verification_id, check_type, billable)
       select gen_random_uuid(), merchant_id, created_at, mode, created_at, id, (array['document', 'liveness', 'face_match'])[1 + substr(id, ${prefix.length + 1})::int % 3], false
         from verifications where id like '${prefix}%'`,
    );
    const since = midday(12);
    const res = await gql(server, owner, UsageReportDocument, { since });
    const rows = await server.sql<{ check_type: string; n: number }>(
      `select check_type, count(*)::int as n from usage_records where merchant_id = $1 and created_at >= $2 group by 1`,
      [account.merchant.id, since],
    );
    expect(Object.fromEntries(res.body.data!.usageReport.byCheckType.map((r) => [r.checkType, r.count]))).toEqual(
      Object.fromEntries(rows.map((r) => [r.check_type, r.n])),
    );
    expect(res.body.data!.usageReport.byEnvironment.map((e) => e.environment)).toEqual(['sandbox', 'live']);
  });
});

describe('persons and permissions', () => {
  it('persons and person need persons.read: INSUFFICIENT_PERMISSIONS', async () => {
    const token = await member([], ['sandbox', 'live']);
    const list = await gql(server, token, PersonsDocument, {});
    expect(list.body.errors?.[0]?.extensions).toMatchObject({
      code: 'INSUFFICIENT_PERMISSIONS',
      type: 'permission_error',
    });
    const one = await gql(server, token, PersonDocument, { id: 'app_whatever' });
    expect(one.body.errors?.[0]?.extensions).toMatchObject({ code: 'INSUFFICIENT_PERMISSIONS' });
    // The figures themselves need only a session.
    expect((await gql(server, token, ReportingOverviewDocument, {})).body.errors).toBeUndefined();
  });

  it('a person with its attempt history, counted from its verifications; another environment\u2019s person is not found', async () => {
    const [applicant] = await server.sql<{ id: string }>(
      `insert into applicants (id, merchant_id, created_at, mode, updated_at, has_identity_link) values ('app_rpt' || $2, $1, now(), 'sandbox', now(), true) returning id`,
      [account.merchant.id, Date.now().toString(36)],
    );
    await server.sql(`update verifications set applicant_id = $1 where ${every(50, 7)}`, [applicant!.id]);
    const attempts = await server.sql<{ id: string }>(
      `select id from verifications where applicant_id = $1 order by created_at desc, id desc`,
      [applicant!.id],
    );
    const res = await gql(server, owner, PersonDocument, { id: applicant!.id });
    expect(res.body.data!.person).toMatchObject({
      id: applicant!.id,
      environment: 'sandbox',
      attempts: attempts.length,
    });
    expect(res.body.data!.person.history!.map((a) => a.id)).toEqual(attempts.map((a) => a.id));
    const page = await gql(server, owner, PersonsDocument, { first: 1 });
    expect(page.body.data!.persons.nodes[0]).toMatchObject({ id: applicant!.id, attempts: attempts.length });
    const liveOnly = await member(['persons.read'], ['live']);
    expect(
      (await gql(server, liveOnly, PersonDocument, { id: applicant!.id })).body.errors?.[0]?.extensions,
    ).toMatchObject({ code: 'RESOURCE_NOT_FOUND', type: 'not_found_error' });
  });
});

describe('scoping', () => {
  it('another account sees nothing of these rows; a seat lacking an environment gets empty figures', async () => {
    const other = await server.bootstrap();
    const theirs = await gql(server, other.member.session_token, ReportingOverviewDocument, {});
    expect(theirs.body.data!.reportingOverview.total).toBe(0);
    const byTag = await gql(server, other.member.session_token, ReportingOverviewDocument, { filter: { tagId: tagA } });
    expect(byTag.body.data!.reportingOverview.total).toBe(0);
    const liveOnly = await member([], ['live']);
    const sandbox = await gql(server, liveOnly, ReportingOverviewDocument, {
      filter: { environment: 'sandbox' as never },
    });
    expect(sandbox.body.data!.reportingOverview).toMatchObject({ environments: [], total: 0 });
    const funnel = await gql(server, liveOnly, DecisionFunnelDocument, { filter: { environment: 'sandbox' as never } });
    expect(funnel.body.data!.decisionFunnel).toEqual({ created: 0, submitted: 0, decided: 0 });
    const usage = await gql(server, liveOnly, UsageReportDocument, { environment: 'sandbox' as never });
    expect(usage.body.data!.usageReport.total).toBe(0);
    const live = await gql(server, liveOnly, ReportingOverviewDocument, {});
    expect(live.body.data!.reportingOverview.environments).toEqual(['live']);
  });

  it('bad input is a GraphQL error with the spec code, never an internal error', async () => {
    const res = await gql(server, owner, PersonsDocument, { first: 500 });
    expect(res.body.errors?.[0]?.extensions).toMatchObject({ code: 'PARAMETER_INVALID', param: 'first' });
  });
});
