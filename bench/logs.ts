import { randomBase62 } from '../src/ids.js';
import { call, expectStatus } from './api.js';
import { measureLoop, openPool } from './database.js';
import type { Measurement } from './load.js';
import type { BenchContext, Comparison, Scenario } from './scenarios.js';

/**
 * The back office's logs and exports: a request-log page (50 rows) over 100,000 seeded calls of
 * the bench account, against the same page read with plain SQL in the same run; and the
 * 5,000-row verification export (streamed CSV, the cap reached) over 5,100 seeded verifications.
 */
const LOGGED_CALLS = 100_000;
const PAGE = 50;
const EXPORT_SEED = 5_100;

/** The request log's page query, as the service runs it without filters: the merge of the account's keys' newest rows. */
const PAGE_SQL = `select r.* from api_keys k cross join lateral (
    select r.id, r.mode, r.api_key_id, r.key_name, r.method, r.route, r.status, r.duration_ms, r.request_id, r.ip, r.created_at
      from request_logs r where r.api_key_id = k.id and r.merchant_id = $1 order by r.created_at desc, r.id desc limit $3) r
  where k.merchant_id = $1 and k.mode = any($2::text[])
  order by r.created_at desc, r.id desc limit $3`;

/** The export's rows (outcome columns, newest first, the cap) in one plain statement: the export's ceiling. */
const EXPORT_SQL = `select v.id, v.mode, v.status, v.verdict, v.decline_type, v.reason_codes, v.change_reason, v.flow_id, v.created_at, v.decided_at
  from verifications v where v.merchant_id = $1 and v.mode = any($2::text[]) and v.created_at <= now()
  order by v.created_at desc, v.id desc limit $3`;
const EXPORT_CONNECTIONS = 2;

let seededLogs: Promise<void> | undefined;
let seededExport: Promise<void> | undefined;

/** 100,000 calls of the bench key spread over the last 29 days (inside the 30-day retention). */
function seedRequestLogs(ctx: BenchContext): Promise<void> {
  seededLogs ??= (async () => {
    const pool = openPool(ctx);
    try {
      const { rows } = await pool.query<{ id: string; name: string }>(
        `select id, name from api_keys where merchant_id = $1 and mode = 'sandbox' limit 1`,
        [ctx.merchantId],
      );
      const key = rows[0]!;
      await pool.query(
        `insert into request_logs (id, merchant_id, mode, api_key_id, key_name, method, route, status, duration_ms, request_id, ip, created_at)
         select request_log_id(t.ts, $4::text || lpad(g::text, 9, '0')), $1, 'sandbox', $2, $3, case when g % 5 = 0 then 'POST' else 'GET' end,
                case when g % 5 = 0 then '/v1/verifications' else '/v1/verifications?email=***&limit=20' end,
                case when g % 17 = 0 then 404 else 200 end, 3.5, 'req_bench' || g, '127.0.0.0/24', t.ts
           from generate_series(1, $5::int) g cross join lateral (select date_trunc('milliseconds', now() - make_interval(secs => g * 25)) ts) t`,
        [ctx.merchantId, key.id, key.name, randomBase62(6), LOGGED_CALLS],
      );
      await pool.query('analyze request_logs');
    } finally {
      await pool.end();
    }
    ctx.log(`  seeded ${LOGGED_CALLS} request-log rows`);
  })();
  return seededLogs;
}

/** 5,100 verifications copied from one made through the API, so the export reaches its cap. */
function seedVerifications(ctx: BenchContext): Promise<void> {
  seededExport ??= (async () => {
    const created = expectStatus(
      await call(`${ctx.serviceUrl}/v1/verifications`, ctx.sandboxKey, 'POST', { sandbox: { outcome: 'pending' } }),
      201,
      'POST /v1/verifications (export template)',
    );
    const pool = openPool(ctx);
    try {
      await pool.query(
        `insert into verifications
         select r.* from verifications t cross join generate_series(1, $3::int) g
         cross join lateral jsonb_populate_record(null::verifications, to_jsonb(t) || jsonb_build_object(
           'id', $2::text || g, 'status', 'approved', 'verdict', 'approve', 'created_at', now() - make_interval(secs => g), 'updated_at', now() - make_interval(secs => g),
           'email_fingerprint', null, 'reference_fingerprint', null, 'document_fingerprint', null, 'national_id_fingerprint', null)) r
         where t.id = $1`,
        [created.body.id, `vs_exb${randomBase62(6)}_`, EXPORT_SEED],
      );
      await pool.query('analyze verifications');
    } finally {
      await pool.end();
    }
    ctx.log(`  seeded ${EXPORT_SEED} verifications for the export`);
  })();
  return seededExport;
}

async function requestLogPage(ctx: BenchContext): Promise<Measurement> {
  await seedRequestLogs(ctx);
  const url = `${ctx.serviceUrl}/v1/console/logs/requests?limit=${PAGE}`;
  const page = expectStatus(await call(url, ctx.memberToken, 'GET'), 200, 'GET /v1/console/logs/requests');
  if ((page.body.data as unknown[]).length !== PAGE)
    throw new Error(`request log: ${(page.body.data as unknown[]).length} rows, expected ${PAGE}`);
  return ctx.measure({ url, headers: { authorization: `Bearer ${ctx.memberToken}` } });
}

async function requestLogPageSql(ctx: BenchContext): Promise<Measurement> {
  await seedRequestLogs(ctx);
  const pool = openPool(ctx);
  try {
    return await measureLoop(ctx, async () => {
      const { rowCount } = await pool.query(PAGE_SQL, [ctx.merchantId, ['sandbox', 'live'], PAGE + 1]);
      if (rowCount !== PAGE + 1) throw new Error(`request log (SQL): ${rowCount} rows`);
    });
  } finally {
    await pool.end();
  }
}

/** Two connections: each answer is a 5,000-row CSV, so more would only queue behind each other. */
async function exportVerifications(ctx: BenchContext): Promise<Measurement> {
  await seedVerifications(ctx);
  const url = `${ctx.serviceUrl}/v1/console/exports/verifications`;
  const res = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${ctx.memberToken}`, 'content-type': 'application/json', connection: 'close' },
    body: '{}',
  });
  const text = await res.text();
  if (res.status !== 200 || res.headers.get('x-rows') !== '5000' || text.trimEnd().split('\n').length !== 5001) {
    throw new Error(`export: ${res.status}, X-Rows ${res.headers.get('x-rows')}, ${text.slice(0, 200)}`);
  }
  return ctx.measure(
    {
      url,
      method: 'POST',
      headers: { authorization: `Bearer ${ctx.memberToken}`, 'content-type': 'application/json' },
      body: '{}',
    },
    { connections: EXPORT_CONNECTIONS },
  );
}

/** The same 5,000 rows read with pg over as many connections, without CSV or HTTP. */
async function exportVerificationsSql(ctx: BenchContext): Promise<Measurement> {
  await seedVerifications(ctx);
  const narrow = { ...ctx, settings: { ...ctx.settings, connections: EXPORT_CONNECTIONS } };
  const pool = openPool(narrow);
  try {
    return await measureLoop(narrow, async () => {
      const { rowCount } = await pool.query(EXPORT_SQL, [ctx.merchantId, ['sandbox', 'live'], 5_000]);
      if (rowCount !== 5_000) throw new Error(`export (SQL): ${rowCount} rows`);
    });
  } finally {
    await pool.end();
  }
}

export const logsScenarios: Scenario[] = [
  {
    name: 'request-log-page',
    label: `REST GET /v1/console/logs/requests?limit=${PAGE} (${LOGGED_CALLS} logged calls)`,
    run: requestLogPage,
  },
  { name: 'request-log-page-sql', label: `same page, plain SQL with pg (ceiling)`, run: requestLogPageSql },
  {
    name: 'export-verifications',
    label: `REST POST /v1/console/exports/verifications, 5,000-row CSV (2 connections)`,
    run: exportVerifications,
  },
  {
    name: 'export-verifications-sql',
    label: `the same 5,000 rows, plain SQL with pg (ceiling, 2 connections)`,
    run: exportVerificationsSql,
  },
];

/** For context (no target): what the service adds on top of the page's own query. */
export const logsComparisons: Comparison[] = [
  { name: 'request-log page/sql', numerator: 'request-log-page', denominator: 'request-log-page-sql' },
  { name: 'export/sql', numerator: 'export-verifications', denominator: 'export-verifications-sql' },
];
