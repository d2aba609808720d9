import { inTransaction, type RawSql } from '../shared/index.js';

/** Deltas folded per transaction: bounded so one fold never holds many row locks for long. */
export const FOLD_BATCH = 20_000;

/** One fold at a time, fleet-wide: a second one would only queue behind the first's row locks. */
const FOLD_LOCK = 7_311_2025;

const DIMS = 'merchant_id, mode, day, flow_id, tag_id, reason_code, status, change_reason, submitted, latency_bucket';
const PKEY = 'merchant_id, mode, tag_id, reason_code, latency_bucket, day, flow_id, status, change_reason, submitted';

interface Target {
  deltas: string;
  /** The fold of deltas with id <= $1: delete them and add them to the rollup, in one statement. */
  fold: string;
}

/*
 * A fold deletes the deltas up to an id and adds their sums to the rollup in one statement,
 * so the delete and the upsert commit together and a reader (which sums rollup and deltas in
 * one snapshot) sees each delta exactly once. A delta committed after the statement's snapshot
 * (even with a lower id) is not visible to the delete and waits for the next fold.
 */
const TARGETS: Target[] = [
  {
    deltas: 'reporting_deltas',
    fold: `
with moved as (delete from reporting_deltas where id <= $1 returning ${DIMS}, n),
summed as (select ${DIMS}, sum(n) as n from moved group by ${DIMS} having sum(n) <> 0)
insert into reporting_rollup (${DIMS}, n) select ${DIMS}, n from summed
on conflict (${PKEY}) do update set n = reporting_rollup.n + excluded.n`,
  },
  {
    deltas: 'usage_deltas',
    fold: `
with moved as (delete from usage_deltas where id <= $1 returning merchant_id, mode, day, check_type, billable, n),
summed as (select merchant_id, mode, day, check_type, billable, sum(n) as n from moved group by 1, 2, 3, 4, 5 having sum(n) <> 0)
insert into usage_rollup (merchant_id, mode, day, check_type, billable, n) select * from summed
on conflict (merchant_id, mode, day, check_type, billable) do update set n = usage_rollup.n + excluded.n`,
  },
];

/** Folds one batch of `target`; answers how many deltas it covered, or null when another fold holds the lock. */
async function foldBatch(sql: RawSql, target: Target, batch: number): Promise<number | null> {
  return inTransaction(sql, async () => {
    const [{ got }] = await sql.query<{ got: boolean }>('select pg_try_advisory_xact_lock($1) as got', [FOLD_LOCK]);
    if (!got) return null;
    const [edge] = await sql.query<{ upto: string | null; n: number }>(
      `select max(id) as upto, count(*)::int as n from (select id from ${target.deltas} order by id limit $1) b`,
      [batch],
    );
    if (!edge?.upto) return 0;
    await sql.query(target.fold, [edge.upto]);
    return edge.n;
  });
}

/**
 * Folds every pending delta into the rollups (across accounts: a system job), batch by batch,
 * then drops rollup rows that reached zero. Answers how many deltas were folded. `sql` must be
 * one connection (a fold is a transaction). When another fold is running it returns at once.
 */
export async function foldReportingDeltas(sql: RawSql, batch = FOLD_BATCH): Promise<number> {
  let folded = 0;
  for (const target of TARGETS) {
    for (;;) {
      const n = await foldBatch(sql, target, batch);
      if (n === null) return folded;
      folded += n;
      if (n < batch) break;
    }
  }
  await inTransaction(sql, async () => {
    const [{ got }] = await sql.query<{ got: boolean }>('select pg_try_advisory_xact_lock($1) as got', [FOLD_LOCK]);
    if (got) await sql.query(`delete from reporting_rollup where n = 0; delete from usage_rollup where n = 0`);
  });
  return folded;
}
