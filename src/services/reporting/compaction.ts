import type { RawSql } from '../shared/index.js';

/** Deltas folded per statement: bounded so one fold never holds many row locks for long. */
export const FOLD_BATCH = 50_000;

const DIMS = 'merchant_id, mode, day, flow_id, tag_id, reason_code, status, change_reason, submitted, latency_bucket';
const PKEY = 'merchant_id, mode, tag_id, reason_code, latency_bucket, day, flow_id, status, change_reason, submitted';

/*
 * Each fold moves a batch of deltas into the rollup in one statement: the delete and the
 * upsert commit together, so a reader (which sums rollup and deltas in one snapshot) sees a
 * delta exactly once. `skip locked` lets two folds run at once without taking the same deltas.
 */
const FOLD_VERIFICATIONS = `
with moved as (
  delete from reporting_deltas where id in (select id from reporting_deltas order by id limit $1 for update skip locked)
  returning ${DIMS}, n
), summed as (select ${DIMS}, sum(n) as n from moved group by ${DIMS} having sum(n) <> 0)
insert into reporting_rollup (${DIMS}, n) select ${DIMS}, n from summed
on conflict (${PKEY}) do update set n = reporting_rollup.n + excluded.n`;

const FOLD_USAGE = `
with moved as (
  delete from usage_deltas where id in (select id from usage_deltas order by id limit $1 for update skip locked)
  returning merchant_id, mode, day, check_type, billable, n
), summed as (select merchant_id, mode, day, check_type, billable, sum(n) as n from moved group by 1, 2, 3, 4, 5 having sum(n) <> 0)
insert into usage_rollup (merchant_id, mode, day, check_type, billable, n) select * from summed
on conflict (merchant_id, mode, day, check_type, billable) do update set n = usage_rollup.n + excluded.n`;

/**
 * Folds every pending delta into the rollups (across accounts: a system job), batch by batch,
 * then drops rollup rows that reached zero. Answers how many deltas were folded.
 */
export async function foldReportingDeltas(sql: RawSql, batch = FOLD_BATCH): Promise<number> {
  let folded = 0;
  for (const statement of [FOLD_VERIFICATIONS, FOLD_USAGE]) {
    for (;;) {
      const table = statement === FOLD_USAGE ? 'usage_deltas' : 'reporting_deltas';
      const [{ pending }] = await sql.query<{ pending: number }>(`select count(*)::int as pending from (select 1 from ${table} limit $1) d`, [batch]);
      if (pending === 0) break;
      await sql.query(statement, [batch]);
      folded += pending;
      if (pending < batch) break;
    }
  }
  await sql.query(`delete from reporting_rollup where n = 0`);
  await sql.query(`delete from usage_rollup where n = 0`);
  return folded;
}
