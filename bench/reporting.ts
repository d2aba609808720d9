import { createHash } from 'node:crypto';
import type pg from 'pg';
import { randomBase62 } from '../src/ids.js';
import { foldReportingDeltas } from '../src/services/reporting/compaction.js';
import { inTransaction } from '../src/services/shared/sql.js';
import { call, expectStatus, graphqlTarget } from './api.js';
import { measureLoop, openPool } from './database.js';
import type { BenchContext, Comparison, Scenario } from './scenarios.js';

/**
 * Reporting at volume (issue 17): overview, analytics over 90 days, usage and a persons page
 * against 1,000,000 verifications of one account, each next to the plain SQL aggregate over
 * the same rows measured in the same run. One connection: the figure that matters is how long
 * one answer takes (target under 150 ms), not throughput under load.
 *
 * The seed lives in an account of its own ("bench reporting seed") and is generated in SQL
 * through the real triggers; a later run finds it and only tops it up to SEEDED.
 */
export const SEED_ACCOUNT_NAME = 'bench reporting seed';
const SEEDED = 1_000_000;
const BATCH = 100_000;
const PERSONS = 250_000;
const PAGE = 20;

type Client = pg.Pool | pg.PoolClient;

interface Seed {
  merchantId: string;
  memberToken: string;
}

const rawSql = (client: Client) => ({
  query: async <Row>(text: string, params?: unknown[]) => (await client.query(text, params)).rows as Row[],
});

/** Rows of one batch: 90 days back, mostly engine-approved, a ninth decided by reviewers, 10% tagged, 4 attempts a person. */
const COPY_BATCH = `
insert into verifications
select r.* from verifications t cross join generate_series($2::int, $3::int) g
cross join lateral (select now() - make_interval(secs => ((g::bigint * 7919) % 7776000)::double precision) as c,
  (array['approved','approved','approved','approved','approved','approved','approved','rejected','rejected','manual_review','expired','expired'])[1 + g % 12] as s) x
cross join lateral jsonb_populate_record(null::verifications, to_jsonb(t) || jsonb_build_object(
  'id', 'vs_rbs' || g, 'created_at', x.c, 'updated_at', x.c, 'expires_at', x.c + interval '1 day', 'status', x.s,
  'verdict', case x.s when 'approved' then 'approve' when 'rejected' then 'reject' when 'manual_review' then 'review' end,
  'change_reason', case when x.s in ('approved', 'rejected') and g % 9 = 0 then 'reviewer' else 'engine' end,
  'decided_at', x.c + make_interval(secs => (case when g % 9 = 0 then 600 + (g * 13) % 86400 else 2 + (g * 7) % 120 end)::double precision),
  'submitted_at', case when x.s = 'expired' and g % 2 = 0 then null else x.c end,
  'reason_codes', (case when x.s = 'rejected' then '["SELFIE_MISMATCH"]' when x.s = 'manual_review' then '["EXPIRY_UNREADABLE"]'
                        when x.s = 'expired' and g % 4 = 0 then '["ALREADY_VERIFIED"]' else '[]' end)::jsonb,
  'applicant_id', 'app_rbs' || (g % ${PERSONS}),
  'email_fingerprint', null, 'reference_fingerprint', null, 'document_fingerprint', null, 'national_id_fingerprint', null, 'identity', null)) r
where t.id = $1`;

const USAGE_BATCH = `
insert into usage_records (id, merchant_id, created_at, mode, updated_at, verification_id, check_type, billable)
select gen_random_uuid(), v.merchant_id, v.created_at, v.mode, v.created_at, v.id, c.type, false
  from verifications v cross join unnest(array['document', 'liveness']) c(type)
 where v.id in (select 'vs_rbs' || g from generate_series($1::int, $2::int) g)`;

/** How many seeded verifications the account holds, read from the rollup (exact, instant). */
async function seededCount(client: Client, merchantId: string): Promise<number> {
  const { rows } = await client.query<{ n: string | null }>(
    `select (select coalesce(sum(n), 0) from reporting_rollup where merchant_id = $1 and tag_id = '' and reason_code = '' and latency_bucket = -1)
          + (select coalesce(sum(n), 0) from reporting_deltas where merchant_id = $1 and tag_id = '' and reason_code = '' and latency_bucket = -1) as n`,
    [merchantId],
  );
  return Number(rows[0]?.n ?? 0);
}

/** The seed account and a template verification: found from an earlier run, or made now. */
async function seedAccount(ctx: BenchContext, pool: pg.Pool): Promise<{ merchantId: string; templateId: string }> {
  const found = await pool.query<{ id: string; template: string | null }>(
    `select m.id, (select v.id from verifications v where v.merchant_id = m.id and v.id not like 'vs_rbs%' order by v.created_at limit 1) as template
       from merchants m where m.name = $1 order by m.created_at desc limit 1`,
    [SEED_ACCOUNT_NAME],
  );
  if (found.rows[0]?.template) return { merchantId: found.rows[0].id, templateId: found.rows[0].template };
  const account = await ctx.bootstrap(SEED_ACCOUNT_NAME);
  const created = expectStatus(
    await call(`${ctx.serviceUrl}/v1/verifications`, account.sandboxKey, 'POST', { sandbox: { outcome: 'pending' } }),
    201,
    'POST /v1/verifications (reporting template)',
  );
  for (const name of ['high risk', 'vip', 'partner']) {
    expectStatus(await call(`${ctx.serviceUrl}/v1/tags`, account.sandboxKey, 'POST', { name }), 201, 'POST /v1/tags');
  }
  return { merchantId: account.merchantId, templateId: created.body.id as string };
}

/** Tops the seed up to SEEDED verifications (with persons, tags and two metered checks each), batch by batch. */
async function topUp(ctx: BenchContext, pool: pg.Pool, merchantId: string, templateId: string): Promise<void> {
  let have = await seededCount(pool, merchantId);
  if (have >= SEEDED) return ctx.log(`  reporting seed found: ${have.toLocaleString('en')} verifications`);
  ctx.log(
    `  reporting seed: ${have.toLocaleString('en')} of ${SEEDED.toLocaleString('en')} verifications; generating the rest in SQL (takes minutes)...`,
  );
  await pool.query(
    `insert into applicants (id, merchant_id, created_at, mode, updated_at, has_identity_link)
     select 'app_rbs' || g, $1, now() - make_interval(secs => g::double precision * 30), 'sandbox', now(), true from generate_series(0, $2::int - 1) g
     on conflict (id) do nothing`,
    [merchantId, PERSONS],
  );
  const { rows: tags } = await pool.query<{ id: string }>(
    `select id from tags where merchant_id = $1 order by created_at`,
    [merchantId],
  );
  const started = Date.now();
  // Seeded ids run 1..SEEDED; the highest present says where an interrupted seed stopped.
  const { rows } = await pool.query<{ last: number | null }>(
    `select max(substr(id, 7)::int) as last from verifications where merchant_id = $1 and id like 'vs_rbs%'`,
    [merchantId],
  );
  for (let from = (rows[0]?.last ?? 0) + 1; from <= SEEDED; from += BATCH) {
    const to = Math.min(SEEDED, from + BATCH - 1);
    await seedBatch(
      pool,
      templateId,
      from,
      to,
      tags.map((t) => t.id),
    );
    await foldAll(pool);
    ctx.log(`    ${to.toLocaleString('en')} seeded (${Math.round((Date.now() - started) / 1000)} s)`);
  }
  await pool.query(
    'analyze verifications; analyze usage_records; analyze applicants; analyze reporting_rollup; analyze usage_rollup',
  );
  have = await seededCount(pool, merchantId);
  ctx.log(`  reporting seed ready: ${have.toLocaleString('en')} verifications`);
}

/**
 * One batch in one transaction: an interrupted seed never leaves verifications without their
 * usage records or tags, so the next run resumes after the highest seeded id.
 */
async function seedBatch(pool: pg.Pool, templateId: string, from: number, to: number, tagIds: string[]): Promise<void> {
  const client = await pool.connect();
  try {
    await inTransaction(rawSql(client), async () => {
      await client.query(COPY_BATCH, [templateId, from, to]);
      await client.query(USAGE_BATCH, [from, to]);
      await client.query(
        `insert into verification_tags (verification_id, tag_id, created_at)
         select 'vs_rbs' || g, ($3::text[])[1 + (g / 10) % array_length($3::text[], 1)], now() from generate_series($1::int, $2::int) g where g % 10 = 0`,
        [from, to, tagIds],
      );
    });
  } finally {
    client.release();
  }
}

/** Folds until no delta is left (the service's own fold job may hold the fold lock for a moment). */
async function foldAll(pool: pg.Pool): Promise<void> {
  const client = await pool.connect();
  try {
    for (;;) {
      await foldReportingDeltas(rawSql(client));
      const { rows } = await client.query<{ left: boolean }>(
        `select exists (select 1 from reporting_deltas) or exists (select 1 from usage_deltas) as left`,
      );
      if (!rows[0]?.left) return;
      await new Promise((r) => setTimeout(r, 500));
    }
  } finally {
    client.release();
  }
}

/** A session for the seed account's owner, minted for this run (the owner's password is not kept between runs). */
async function mintSession(pool: pg.Pool, merchantId: string): Promise<string> {
  const token = `mst_${randomBase62(40)}`;
  await pool.query(
    `insert into member_sessions (id, merchant_id, created_at, member_id, token_hash, expires_at)
     select gen_random_uuid(), $1::text, now(), m.id, $2, now() + interval '12 hours' from members m where m.merchant_id = $1::text order by m.created_at limit 1`,
    [merchantId, createHash('sha256').update(token).digest('hex')],
  );
  return token;
}

let seeded: Promise<Seed> | undefined;

async function prepare(ctx: BenchContext): Promise<Seed> {
  const pool = openPool(ctx);
  try {
    const { merchantId, templateId } = await seedAccount(ctx, pool);
    await topUp(ctx, pool, merchantId, templateId);
    return { merchantId, memberToken: await mintSession(pool, merchantId) };
  } finally {
    await pool.end();
  }
}

const seed = (ctx: BenchContext) => (seeded ??= prepare(ctx));

/** One answer at a time: the latency of an answer is what the target is about. */
const oneAtATime = (ctx: BenchContext): BenchContext => ({ ...ctx, settings: { ...ctx.settings, connections: 1 } });

const since90 = () => new Date(Date.now() - 90 * 86_400_000).toISOString();

interface Question {
  name: string;
  label: string;
  path: () => string;
  /** The plain SQL aggregate over the same rows: $1 the account, $2 the since bound when the question has one. */
  sql: string;
  withSince?: boolean;
  /** The answer's figure and the aggregate's, which must be equal (checked once before timing). */
  check: (body: any, rows: any[]) => [number, number];
}

const QUESTIONS: Question[] = [
  {
    name: 'overview',
    label: 'overview (status breakdown, all time)',
    path: () => '/v1/console/overview',
    sql: `select status, count(*)::int as n, count(*) filter (where status in ('approved', 'rejected') and change_reason = 'reviewer')::int as reviewer
            from verifications where merchant_id = $1 group by status`,
    check: (body, rows) => [body.total, rows.reduce((a, r) => a + r.n, 0)],
  },
  {
    name: 'analytics',
    label: 'analytics (90 days by UTC day)',
    path: () => `/v1/console/analytics?since=${encodeURIComponent(since90())}`,
    sql: `select (created_at at time zone 'UTC')::date as day, status, change_reason, count(*)::int as n
            from verifications where merchant_id = $1 and created_at >= $2 group by 1, 2, 3`,
    withSince: true,
    check: (body, rows) => [body.total, rows.reduce((a, r) => a + r.n, 0)],
  },
  {
    name: 'usage',
    label: 'usage (per check type and environment, all time)',
    path: () => '/v1/console/usage',
    sql: `select mode, check_type, count(*)::int as n, count(*) filter (where billable)::int as billable from usage_records where merchant_id = $1 group by 1, 2`,
    check: (body, rows) => [body.total, rows.reduce((a, r) => a + r.n, 0)],
  },
  {
    name: 'persons',
    label: `persons page (${PAGE} of ${PERSONS.toLocaleString('en')})`,
    path: () => `/v1/console/persons?limit=${PAGE}`,
    sql: `select a.id, count(v.id)::int as n from applicants a left join verifications v on v.applicant_id = a.id
           where a.merchant_id = $1 group by a.id, a.created_at order by a.created_at desc, a.id desc limit ${PAGE}`,
    check: (body, rows) => [
      body.data.reduce((a: number, p: { attempts: number }) => a + p.attempts, 0),
      rows.reduce((a, r) => a + r.n, 0),
    ],
  },
];

function service(q: Question): Scenario {
  return {
    name: `reporting-${q.name}`,
    label: `reporting REST ${q.label}, 1M verifications`,
    run: async (ctx) => {
      const { memberToken, merchantId } = await seed(ctx);
      const url = `${ctx.serviceUrl}${q.path()}`;
      const answer = expectStatus(await call(url, memberToken, 'GET'), 200, `GET ${q.path()}`);
      const pool = openPool(ctx);
      try {
        const { rows } = await pool.query(
          q.sql,
          q.withSince ? [merchantId, new URL(url).searchParams.get('since')] : [merchantId],
        );
        const [got, counted] = q.check(answer.body, rows);
        if (got !== counted)
          throw new Error(`reporting ${q.name}: the answer says ${got}, the plain SQL aggregate ${counted}`);
        ctx.log(`  ${q.name}: ${got.toLocaleString('en')} equals the plain SQL aggregate`);
      } finally {
        await pool.end();
      }
      return oneAtATime(ctx).measure({ url, headers: { authorization: `Bearer ${memberToken}` } }, { connections: 1 });
    },
  };
}

function plainSql(q: Question): Scenario {
  return {
    name: `reporting-${q.name}-sql`,
    label: `plain SQL aggregate: ${q.label}`,
    run: async (ctx) => {
      const { merchantId } = await seed(ctx);
      const single = oneAtATime(ctx);
      const pool = openPool(single);
      try {
        return await measureLoop(single, async () => {
          await pool.query(q.sql, q.withSince ? [merchantId, since90()] : [merchantId]);
        });
      } finally {
        await pool.end();
      }
    },
  };
}

export const reportingScenarios: Scenario[] = QUESTIONS.flatMap((q) => [service(q), plainSql(q)]);

/** Answers per second of the service against the plain aggregate over the same rows (no target: context for the 150 ms figure). */
export const reportingComparisons: Comparison[] = QUESTIONS.map((q) => ({
  name: `reporting ${q.name} service/plain SQL`,
  numerator: `reporting-${q.name}`,
  denominator: `reporting-${q.name}-sql`,
}));

/**
 * What an analyst asks next, through GraphQL in one request: reason codes, time to decision
 * (p50/p90, engine and reviewer) and the funnel, narrowed to one tag over 90 days (the tag
 * filter reads the tag's own rollup keys, not a join over the rows).
 */
const ANALYST_QUERY = `query($f: ReportingFilter) { reasonCodeBreakdown(filter: $f) { reasonCode count }
  timeToDecision(filter: $f) { engine { count p50Seconds p90Seconds } reviewer { count p50Seconds p90Seconds } }
  decisionFunnel(filter: $f) { created submitted decided } }`;

const ANALYST_SQL = `
with v as (select v.* from verifications v join verification_tags vt on vt.verification_id = v.id and vt.tag_id = $2
            where v.merchant_id = $1 and v.created_at >= $3)
select (select count(*)::int from v) as created, (select count(*)::int from v where submitted_at is not null) as submitted,
       (select count(*)::int from v where status in ('approved', 'rejected')) as decided,
       (select json_agg(r) from (select code, count(*) from v, unnest(v.reason_codes) code group by code) r) as reasons,
       (select json_agg(t) from (select change_reason = 'reviewer' as reviewer,
               percentile_disc(array[0.5, 0.9]) within group (order by decided_at - created_at) as p from v
         where status in ('approved', 'rejected') and decided_at is not null group by 1) t) as times`;

async function analystTarget(
  ctx: BenchContext,
): Promise<{ merchantId: string; memberToken: string; tagId: string; since: string }> {
  const { merchantId, memberToken } = await seed(ctx);
  const pool = openPool(ctx);
  try {
    const { rows } = await pool.query<{ id: string }>(
      `select id from tags where merchant_id = $1 order by created_at limit 1`,
      [merchantId],
    );
    return { merchantId, memberToken, tagId: rows[0]!.id, since: since90() };
  } finally {
    await pool.end();
  }
}

const analystService: Scenario = {
  name: 'reporting-graphql-analyst',
  label: 'reporting GraphQL reason codes + time to decision + funnel, one tag, 90 days, 1M verifications',
  run: async (ctx) => {
    const { merchantId, memberToken, tagId, since } = await analystTarget(ctx);
    const body = { query: ANALYST_QUERY, variables: { f: { tagId, since } } };
    const res = expectStatus(
      await call(`${ctx.serviceUrl}/graphql`, memberToken, 'POST', body),
      200,
      'POST /graphql (reporting)',
    );
    if (res.body.errors)
      throw new Error(`reporting GraphQL answered errors: ${JSON.stringify(res.body.errors).slice(0, 500)}`);
    const pool = openPool(ctx);
    try {
      const { rows } = await pool.query<{ created: number }>(ANALYST_SQL, [merchantId, tagId, since]);
      const got = res.body.data.decisionFunnel.created as number;
      if (got !== rows[0]!.created)
        throw new Error(
          `reporting analyst: the funnel says ${got} created, the plain SQL aggregate ${rows[0]!.created}`,
        );
      ctx.log(`  analyst (one tag, 90 days): ${got.toLocaleString('en')} created equals the plain SQL aggregate`);
    } finally {
      await pool.end();
    }
    return oneAtATime(ctx).measure(graphqlTarget(ctx.serviceUrl, memberToken, body.query, body.variables), {
      connections: 1,
    });
  },
};

const analystSql: Scenario = {
  name: 'reporting-graphql-analyst-sql',
  label: 'plain SQL aggregate: reason codes + percentiles + funnel, one tag, 90 days',
  run: async (ctx) => {
    const { merchantId, tagId, since } = await analystTarget(ctx);
    const single = oneAtATime(ctx);
    const pool = openPool(single);
    try {
      return await measureLoop(single, async () => {
        await pool.query(ANALYST_SQL, [merchantId, tagId, since]);
      });
    } finally {
      await pool.end();
    }
  },
};

reportingScenarios.push(analystService, analystSql);
reportingComparisons.push({
  name: 'reporting graphql-analyst service/plain SQL',
  numerator: analystService.name,
  denominator: analystSql.name,
});
