import { type BootstrapResult, type MemberPermission } from '../../src/services/access/index.js';
import { signedInMember } from '../support/members.js';
import type { TestServer } from '../support/test-server.js';
import { withTestAccount } from '../support/account.js';
import { createVerification } from '../support/factories.js';
import { waitFor } from '../support/wait.js';

let server: TestServer;
let account: BootstrapResult;
let owner: string;
withTestAccount((t) => {
  ({ server, account } = t);
  owner = account.member.session_token;
});

/** A member of `of` with the given permissions and environments, signed in. */
const member = async (
  permissions: MemberPermission[],
  environments: ('sandbox' | 'live')[],
  of: BootstrapResult = account,
): Promise<string> => (await signedInMember(server, of, permissions, environments)).token;

const get = (path: string, token = owner) => server.request(path, { token });

/** Independently counted: a plain count(*) ... group by over the account's verification rows. */
async function countedByStatus(merchantId: string, modes: string[], since?: string): Promise<Record<string, number>> {
  const rows = await server.sql<{ status: string; n: number }>(
    `select status, count(*)::int as n from verifications where merchant_id = $1 and mode = any($2::text[]) and ($3::timestamptz is null or created_at >= $3) group by status`,
    [merchantId, modes, since ?? null],
  );
  const out: Record<string, number> = {
    pending: 0,
    processing: 0,
    approved: 0,
    rejected: 0,
    manual_review: 0,
    expired: 0,
  };
  for (const row of rows) out[row.status] = row.n;
  return out;
}

async function countedDecisions(merchantId: string, modes: string[]): Promise<{ reviewer: number; automated: number }> {
  const [row] = await server.sql<{ reviewer: number; automated: number }>(
    `select count(*) filter (where change_reason = 'reviewer')::int as reviewer, count(*) filter (where change_reason in ('engine', 'auto_policy'))::int as automated
       from verifications where merchant_id = $1 and mode = any($2::text[]) and status in ('approved', 'rejected')`,
    [merchantId, modes],
  );
  return row!;
}

const document = (number: string) => ({
  number,
  national_id: `N${number}`,
  type: 'passport',
  issuing_country: 'GBR',
  date_of_birth: '1990-01-01',
  expiry_date: '2031-01-01',
});

beforeAll(async () => {
  const created = await Promise.all([
    ...['approved', 'approved', 'rejected', 'review', 'review'].map((outcome, i) =>
      createVerification(server, account, 'sandbox', {
        sandbox: { outcome, document: document(`R${Date.now()}${i}`) },
      }),
    ),
    createVerification(server, account, 'sandbox'),
    createVerification(server, account, 'live'),
  ]);
  const ids = created.map((v) => v.id);
  await waitFor(
    async () => {
      const [row] = await server.sql<{ open: number }>(
        `select count(*)::int as open from verifications where id = any($1::text[]) and status = 'processing'`,
        [ids],
      );
      return row!.open === 0;
    },
    30_000,
    'the sandbox sessions to settle',
  );
  // One case decided by a reviewer in the console: an outcome that reached a person.
  const review = await waitFor(
    async () =>
      (
        await server.sql<{ id: string }>(
          `select id from manual_reviews where merchant_id = $1 and status = 'queued' limit 1`,
          [account.merchant.id],
        )
      )[0]?.id,
    15_000,
    'a queued review',
  );
  const decided = await server.request(`/v1/console/reviews/${review}/decision`, {
    token: owner,
    body: { decision: 'approve' },
  });
  expect(decided.status).toBe(200);
});

describe('GET /v1/console/overview', () => {
  it('gives the status breakdown of the seat environments, equal to a plain count(*) group by over the same rows', async () => {
    const res = await get('/v1/console/overview');
    expect(res.status).toBe(200);
    const counted = await countedByStatus(account.merchant.id, ['sandbox', 'live']);
    const decisions = await countedDecisions(account.merchant.id, ['sandbox', 'live']);
    expect(res.body).toMatchObject({ object: 'overview', modes: ['sandbox', 'live'], since: null, by_status: counted });
    expect(res.body.total).toBe(Object.values(counted).reduce((a, b) => a + b, 0));
    expect(res.body.awaiting_review).toBe(counted.manual_review);
    expect(res.body.decided_by_reviewer).toBe(decisions.reviewer);
    expect(res.body.decided_by_reviewer).toBeGreaterThanOrEqual(1);
    expect(res.body.automated).toBe(decisions.automated);
    expect(res.body.automation_rate).toBeCloseTo(
      decisions.automated / (counted.approved + counted.rejected + counted.manual_review),
      10,
    );
  });

  it('takes mode and since; since in the middle of a UTC day counts from that instant', async () => {
    const [oldest] = await server.sql<{ id: string }>(
      `select id from verifications where merchant_id = $1 and mode = 'sandbox' order by created_at limit 2`,
      [account.merchant.id],
    );
    // Two rows moved back: one into an earlier day, so both the rollup's whole days and the partial first day are read.
    await server.sql(`update verifications set created_at = now() - interval '3 days' where id = $1`, [oldest!.id]);
    const since = new Date(Date.now() - 2 * 86_400_000 - 3_600_000).toISOString();
    const sandbox = await get(`/v1/console/overview?mode=sandbox&since=${encodeURIComponent(since)}`);
    expect(sandbox.status).toBe(200);
    expect(sandbox.body.modes).toEqual(['sandbox']);
    expect(sandbox.body.since).toBe(since);
    expect(sandbox.body.by_status).toEqual(await countedByStatus(account.merchant.id, ['sandbox'], since));
    const all = await get(`/v1/console/overview?mode=sandbox`);
    expect(all.body.total).toBe(sandbox.body.total + 1);
    const live = await get('/v1/console/overview?mode=live');
    expect(live.body.by_status).toEqual(await countedByStatus(account.merchant.id, ['live']));
  });

  it('refuses a bad mode or since with 400 PARAMETER_INVALID naming the parameter', async () => {
    for (const [query, param] of [
      ['mode=staging', 'mode'],
      ['since=yesterday', 'since'],
    ]) {
      const res = await get(`/v1/console/overview?${query}`);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ type: 'invalid_request_error', code: 'PARAMETER_INVALID', param });
    }
  });
});

describe('GET /v1/console/analytics', () => {
  it('buckets by UTC day of creation, each day equal to count(*) group by day, status', async () => {
    const res = await get('/v1/console/analytics?mode=sandbox');
    expect(res.status).toBe(200);
    const rows = await server.sql<{ day: string; status: string; n: number }>(
      `select to_char((created_at at time zone 'UTC')::date, 'YYYY-MM-DD') as day, status, count(*)::int as n from verifications
        where merchant_id = $1 and mode = 'sandbox' and created_at >= $2 group by 1, 2`,
      [account.merchant.id, res.body.since],
    );
    expect(Date.now() - Date.parse(res.body.since)).toBeGreaterThan(29.9 * 86_400_000);
    const days = res.body.days as { day: string; total: number; by_status: Record<string, number> }[];
    expect(days.length).toBeGreaterThanOrEqual(4);
    expect(days.at(-1)!.day).toBe(new Date().toISOString().slice(0, 10));
    for (const day of days) {
      const counted = rows.filter((r) => r.day === day.day);
      expect(day.total).toBe(counted.reduce((a, r) => a + r.n, 0));
      for (const r of counted) expect(day.by_status[r.status]).toBe(r.n);
    }
    expect(days.reduce((a, d) => a + d.total, 0)).toBe(res.body.total);
    expect(res.body.decided_by_reviewer).toBe((await countedDecisions(account.merchant.id, ['sandbox'])).reviewer);
  });
});

describe('GET /v1/console/usage', () => {
  it('meters per check type and per environment, the same records as GET /v1/usage', async () => {
    const res = await get('/v1/console/usage');
    expect(res.status).toBe(200);
    const rows = await server.sql<{ mode: string; check_type: string; n: number; billable: number }>(
      `select mode, check_type, count(*)::int as n, (count(*) filter (where billable))::int as billable from usage_records where merchant_id = $1 group by 1, 2`,
      [account.merchant.id],
    );
    expect(rows.length).toBeGreaterThan(0);
    expect(res.body.total).toBe(rows.reduce((a, r) => a + r.n, 0));
    for (const r of rows) {
      const env = res.body.by_environment.find((e: { mode: string }) => e.mode === r.mode);
      expect(env.by_check_type).toContainEqual({ check_type: r.check_type, count: r.n, billable: r.billable });
    }
    const key = await server.request('/v1/usage', { token: account.keys.sandbox.secret_key });
    const sandbox = res.body.by_environment.find((e: { mode: string }) => e.mode === 'sandbox');
    expect({ total: sandbox.total, billable: sandbox.billable, by_check_type: sandbox.by_check_type }).toEqual({
      total: key.body.total,
      billable: key.body.billable,
      by_check_type: key.body.by_check_type,
    });
  });
});

describe('GET /v1/console/persons', () => {
  it('needs persons.read (403 INSUFFICIENT_PERMISSIONS)', async () => {
    const token = await member([], ['sandbox', 'live']);
    for (const path of ['/v1/console/persons', '/v1/console/persons/app_doesnotexist']) {
      const res = await get(path, token);
      expect(res.status).toBe(403);
      expect(res.body.error).toMatchObject({ type: 'permission_error', code: 'INSUFFICIENT_PERMISSIONS' });
    }
  });

  it('lists persons newest first with attempts counted from their verifications, and a person with its history; no identity', async () => {
    const list = await get('/v1/console/persons?limit=100');
    expect(list.status).toBe(200);
    const counted = await server.sql<{ id: string; attempts: number }>(
      `select a.id, count(v.id)::int as attempts from applicants a left join verifications v on v.applicant_id = a.id
        where a.merchant_id = $1 group by a.id, a.created_at order by a.created_at desc, a.id desc`,
      [account.merchant.id],
    );
    expect(counted.length).toBeGreaterThan(0);
    expect(list.body.data.map((p: { id: string; attempts: number }) => [p.id, p.attempts])).toEqual(
      counted.map((c) => [c.id, c.attempts]),
    );
    const person = await get(`/v1/console/persons/${counted[0]!.id}`);
    expect(person.status).toBe(200);
    expect(person.body).toMatchObject({ id: counted[0]!.id, object: 'person', attempts: counted[0]!.attempts });
    const history = await server.sql<{ id: string }>(
      `select id from verifications where applicant_id = $1 order by created_at desc, id desc`,
      [counted[0]!.id],
    );
    expect(person.body.history.map((a: { id: string }) => a.id)).toEqual(history.map((h) => h.id));
    const text = JSON.stringify(person.body) + JSON.stringify(list.body);
    for (const leak of ['first_name', 'document_number', 'date_of_birth', 'email', 'fields'])
      expect(text).not.toContain(leak);
  });

  it('pages with limit and starting_after; an unknown cursor gives the first page', async () => {
    const first = await get('/v1/console/persons?limit=1');
    expect(first.body.data).toHaveLength(1);
    const all = await get('/v1/console/persons?limit=100');
    if (all.body.data.length > 1) {
      expect(first.body.has_more).toBe(true);
      const second = await get(`/v1/console/persons?limit=1&starting_after=${first.body.next_cursor}`);
      expect(second.body.data[0].id).toBe(all.body.data[1].id);
    }
    const unknown = await get('/v1/console/persons?limit=1&starting_after=app_unknown000');
    expect(unknown.body.data[0].id).toBe(first.body.data[0].id);
  });
});

describe('scoping', () => {
  it('another account sees none of these numbers, persons or ids', async () => {
    const other = await server.bootstrap();
    await createVerification(server, other, 'sandbox');
    const overview = await get('/v1/console/overview', other.member.session_token);
    expect(overview.body.total).toBe(1);
    expect(overview.body.by_status.pending).toBe(1);
    const usage = await get('/v1/console/usage', other.member.session_token);
    expect(usage.body.total).toBe(0);
    const persons = await get('/v1/console/persons', other.member.session_token);
    expect(persons.body.data).toEqual([]);
    const [mine] = await server.sql<{ id: string }>(`select id from applicants where merchant_id = $1 limit 1`, [
      account.merchant.id,
    ]);
    const foreign = await get(`/v1/console/persons/${mine!.id}`, other.member.session_token);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.type).toBe('not_found_error');
  });

  it('a seat lacking an environment gets empty figures for it and only its own environment by default', async () => {
    const liveOnly = await member(['persons.read'], ['live']);
    for (const path of [
      '/v1/console/overview?mode=sandbox',
      '/v1/console/analytics?mode=sandbox',
      '/v1/console/usage?mode=sandbox',
    ]) {
      const res = await get(path, liveOnly);
      expect(res.status).toBe(200);
      expect(res.body.modes).toEqual([]);
      expect(res.body.total).toBe(0);
    }
    expect((await get('/v1/console/persons?mode=sandbox', liveOnly)).body.data).toEqual([]);
    const overview = await get('/v1/console/overview', liveOnly);
    expect(overview.body.modes).toEqual(['live']);
    expect(overview.body.by_status).toEqual(await countedByStatus(account.merchant.id, ['live']));
    const [sandboxPerson] = await server.sql<{ id: string }>(
      `select id from applicants where merchant_id = $1 and mode = 'sandbox' limit 1`,
      [account.merchant.id],
    );
    expect((await get(`/v1/console/persons/${sandboxPerson!.id}`, liveOnly)).status).toBe(404);
  });

  it('a secret key cannot call the console (401)', async () => {
    const res = await get('/v1/console/overview', account.keys.sandbox.secret_key);
    expect(res.status).toBe(401);
  });
});
