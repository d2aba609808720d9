import { foldReportingDeltas } from '../../src/services/reporting/index.js';
import { withConnection } from '../../src/services/shared/index.js';
import type { BootstrapResult } from '../../src/services/access/index.js';
import type { TestServer } from '../support/test-server.js';
import { withTestAccount } from '../support/account.js';
import { createVerification, keyOf } from '../support/factories.js';

/**
 * The rollups can never drift from the rows: folds running side by side (the job on several
 * workers) while writers change statuses, reasons, tags and add and delete rows, and readers
 * reading in the middle of it all. Two invariants, both against the rows themselves:
 * - at any instant, one statement summing rollup + pending deltas equals count(*) over the
 *   rows in the same snapshot (a fold never shows a delta twice or not at all);
 * - once everything settles, rollup + deltas equal, key by key, the keys the rows imply.
 */
let server: TestServer;
let account: BootstrapResult;
withTestAccount((t) => ({ server, account } = t));

const SEEDED = 600;
const prefix = `vs_rfd${Date.now().toString(36)}_`;
let tag: string;

const every = (k: number, r = 0) => `id like '${prefix}%' and substr(id, ${prefix.length + 1})::int % ${k} = ${r}`;

async function seed(from: number, to: number, templateId: string): Promise<void> {
  await server.sql(
    `insert into verifications
     select r.* from verifications t cross join generate_series($3::int, $4::int) g
     cross join lateral (select now() - make_interval(secs => ((g * 7919) % 864000)::double precision) as c,
                                (array['pending','processing','approved','rejected','manual_review','expired'])[1 + g % 6] as s) x
     cross join lateral jsonb_populate_record(null::verifications, to_jsonb(t) || jsonb_build_object(
       'id', $2::text || g, 'created_at', x.c, 'updated_at', x.c, 'status', x.s,
       'change_reason', case when x.s in ('approved', 'rejected') then (case when g % 4 = 0 then 'reviewer' else 'engine' end) end,
       'decided_at', case when x.s in ('approved', 'rejected') then x.c + make_interval(secs => (1 + g % 900)::double precision) end,
       'reason_codes', case when g % 5 = 0 then '["SELFIE_MISMATCH"]'::jsonb else '[]'::jsonb end,
       'email_fingerprint', null, 'reference_fingerprint', null, 'identity', null)) r
     where t.id = $1`,
    [templateId, prefix, from, to],
  );
}

/** One statement, one snapshot: the status slice of rollup + deltas, and count(*) over the rows. */
async function snapshotTotals(): Promise<{ kept: number; counted: number }> {
  const [row] = await server.sql<{ kept: number; counted: number }>(
    `select (select coalesce(sum(n), 0)::int from (
               select n from reporting_rollup where merchant_id = $1 and tag_id = '' and reason_code = '' and latency_bucket = -1
               union all
               select n from reporting_deltas where merchant_id = $1 and tag_id = '' and reason_code = '' and latency_bucket = -1) s) as kept,
            (select count(*)::int from verifications where merchant_id = $1) as counted`,
    [account.merchant.id],
  );
  return row!;
}

/** Keys (with counts) present in rollup + deltas but not implied by the rows, and the reverse. */
async function drift(): Promise<number> {
  const keys = 'mode, day, flow_id, tag_id, reason_code, status, change_reason, submitted, latency_bucket';
  const [row] = await server.sql<{ n: number }>(
    `with kept as (
       select ${keys}, sum(n)::int as n from (
         select ${keys}, n from reporting_rollup where merchant_id = $1 union all select ${keys}, n from reporting_deltas where merchant_id = $1) s
       group by ${keys} having sum(n) <> 0),
     implied as (
       select v.mode, k.day, k.flow_id, k.tag_id, k.reason_code, k.status, k.change_reason, k.submitted, k.latency_bucket, count(*)::int as n
         from verifications v cross join lateral reporting_keys(v.created_at, v.flow_id, v.status, v.change_reason, v.reason_codes, v.submitted_at is not null,
                v.decided_at, array(select vt.tag_id from verification_tags vt where vt.verification_id = v.id)) k
        where v.merchant_id = $1 group by 1, 2, 3, 4, 5, 6, 7, 8, 9)
     select (select count(*) from (select * from kept except all select * from implied) a)::int
          + (select count(*) from (select * from implied except all select * from kept) b)::int as n`,
    [account.merchant.id],
  );
  return row!.n;
}

async function usageDrift(): Promise<number> {
  const [row] = await server.sql<{ n: number }>(
    `with kept as (select mode, day, check_type, billable, sum(n)::int as n from (
                     select mode, day, check_type, billable, n from usage_rollup where merchant_id = $1
                     union all select mode, day, check_type, billable, n from usage_deltas where merchant_id = $1) s
                   group by 1, 2, 3, 4 having sum(n) <> 0),
          rows as (select mode, (created_at at time zone 'UTC')::date as day, check_type, billable, count(*)::int as n from usage_records where merchant_id = $1 group by 1, 2, 3, 4)
     select (select count(*) from (select * from kept except all select * from rows) a)::int + (select count(*) from (select * from rows except all select * from kept) b)::int as n`,
    [account.merchant.id],
  );
  return row!.n;
}

/** The writers: each step a separate transaction, in the order a busy account would mix them. */
function writes(templateId: string): (() => Promise<unknown>)[] {
  const steps: (() => Promise<unknown>)[] = [];
  for (let i = 0; i < 8; i++) {
    steps.push(() =>
      server.sql(
        `update verifications set status = 'approved', change_reason = 'reviewer', decided_at = now() where status = 'manual_review' and ${every(8, i)}`,
      ),
    );
    steps.push(() =>
      server.sql(
        `insert into verification_tags (verification_id, tag_id, created_at) select id, $1, now() from verifications where ${every(8, i)} on conflict do nothing`,
        [tag],
      ),
    );
    steps.push(() =>
      server.sql(`update verifications set reason_codes = reason_codes || '{ID_INVALID}' where ${every(16, i)}`),
    );
    steps.push(() =>
      server.sql(
        `delete from verification_tags where tag_id = $1 and verification_id in (select id from verifications where ${every(24, i)})`,
        [tag],
      ),
    );
    steps.push(() => seed(SEEDED + 1 + i * 40, SEEDED + 40 + i * 40, templateId));
    steps.push(() =>
      server.sql(
        `insert into usage_records (id, merchant_id, created_at, mode, updated_at, verification_id, check_type, billable)
         select gen_random_uuid(), merchant_id, created_at, mode, created_at, id, 'document', false from verifications where ${every(8, i)}`,
      ),
    );
    steps.push(() =>
      server.sql(
        `delete from usage_records where merchant_id = $1 and check_type = 'document' and verification_id in (select id from verifications where ${every(32, i)})`,
        [account.merchant.id],
      ),
    );
  }
  return steps;
}

describe('reporting fold under concurrency', () => {
  let templateId: string;
  beforeAll(async () => {
    templateId = (await createVerification(server, account, 'sandbox')).id;
    tag = (await server.request('/v1/tags', { token: keyOf(account, 'sandbox'), body: { name: 'Fold race' } })).body.id;
    await seed(1, SEEDED, templateId);
  });

  it('readers always see rollup + deltas equal to count(*) while folds and writers race; nothing drifts once settled', async () => {
    let running = true;
    const seen: { kept: number; counted: number }[] = [];
    const folder = async () => {
      // Small batches, so a fold spans many transactions interleaved with the writers.
      while (running) await withConnection(server.runtime.orm, (sql) => foldReportingDeltas(sql, 25));
    };
    const reader = async () => {
      while (running) seen.push(await snapshotTotals());
    };
    const writer = async (steps: (() => Promise<unknown>)[]) => {
      // Two bulk writers over the same rows can deadlock in PostgreSQL (40P01); a client retries that.
      for (const step of steps)
        await step().catch((e: { code?: string }) => (e.code === '40P01' ? step() : Promise.reject(e)));
    };
    const all = writes(templateId);
    const background = [folder(), folder(), folder(), reader()];
    try {
      // Two writers interleaving their halves of the steps.
      await Promise.all([writer(all.filter((_, i) => i % 2 === 0)), writer(all.filter((_, i) => i % 2 === 1))]);
    } finally {
      running = false;
      await Promise.all(background);
    }
    expect(seen.length).toBeGreaterThan(0);
    for (const s of seen) expect(s.kept).toBe(s.counted);
    expect(await drift()).toBe(0);
    expect(await usageDrift()).toBe(0);

    // Fold to the end (the service's own fold job may hold the lock for a moment: try again).
    let pending = -1;
    for (let tries = 0; tries < 40 && pending !== 0; tries++) {
      await withConnection(server.runtime.orm, (sql) => foldReportingDeltas(sql));
      const [row] = await server.sql<{ n: number }>(
        `select ((select count(*) from reporting_deltas where merchant_id = $1) + (select count(*) from usage_deltas where merchant_id = $1))::int as n`,
        [account.merchant.id],
      );
      pending = row!.n;
      if (pending !== 0) await new Promise((r) => setTimeout(r, 250));
    }
    expect(pending).toBe(0);
    expect(await drift()).toBe(0);
    expect(await usageDrift()).toBe(0);
    expect(await snapshotTotals()).toEqual({ kept: SEEDED + 1 + 8 * 40, counted: SEEDED + 1 + 8 * 40 });
  }, 180_000);

  it('a fold that finds another fold holding the lock returns at once without folding', async () => {
    await server.sql(`update verifications set reason_codes = reason_codes || '{EXPIRY_UNREADABLE}' where ${every(7)}`);
    const held = withConnection(server.runtime.orm, async (sql) => {
      await sql.query('begin');
      await sql.query('select pg_advisory_xact_lock(73112025)');
      const folded = await withConnection(server.runtime.orm, (other) => foldReportingDeltas(other));
      await sql.query('rollback');
      return folded;
    });
    expect(await held).toBe(0);
    expect(await drift()).toBe(0);
  });
});
