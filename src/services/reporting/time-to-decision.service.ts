import type { ServiceContext } from '../shared/index.js';
import { queryVerificationKeys } from './rollup-source.js';
import { reportingScope, type ReportingFilter } from './window.js';

/** Width of a time-to-decision bucket (the ReportingRollups migration): 5%, so a percentile is within ±2.5%. */
export const LATENCY_BUCKET_BASE = 1.05;

/** The representative duration of a bucket: its geometric midpoint, in seconds. */
export const bucketSeconds = (bucket: number): number => LATENCY_BUCKET_BASE ** (bucket + 0.5) / 1000;

export interface DecisionTimes {
  /** How many decisions the figures cover. */
  count: number;
  p50Seconds: number | null;
  p90Seconds: number | null;
}

export interface TimeToDecision {
  /** Approved or rejected by the engine or a policy. */
  engine: DecisionTimes;
  /** Approved or rejected by a reviewer. */
  reviewer: DecisionTimes;
}

/** Nearest-rank percentile over (bucket, count) pairs sorted by bucket. */
function percentile(buckets: { bucket: number; n: number }[], total: number, p: number): number | null {
  if (total === 0) return null;
  const rank = Math.ceil(p * total);
  let seen = 0;
  for (const { bucket, n } of buckets) {
    seen += n;
    if (seen >= rank) return bucketSeconds(bucket);
  }
  return bucketSeconds(buckets.at(-1)!.bucket);
}

function timesOf(buckets: { bucket: number; n: number }[]): DecisionTimes {
  const count = buckets.reduce((sum, b) => sum + b.n, 0);
  return { count, p50Seconds: percentile(buckets, count, 0.5), p90Seconds: percentile(buckets, count, 0.9) };
}

/**
 * Time from creation to the final decision (approved or rejected) of the verifications in the
 * window, p50 and p90, for the engine's decisions and the reviewers' separately.
 */
export async function timeToDecision(ctx: ServiceContext, filter: ReportingFilter): Promise<TimeToDecision> {
  const scoped = reportingScope(ctx, filter.mode);
  if (!scoped) return { engine: timesOf([]), reviewer: timesOf([]) };
  const rows = await queryVerificationKeys<{ who: 'engine' | 'reviewer'; bucket: number; n: number }>(
    scoped,
    'latency',
    filter,
    (source) =>
      `select case when change_reason = 'reviewer' then 'reviewer' else 'engine' end as who, latency_bucket as bucket, sum(n)::int as n
       from ${source} s group by 1, 2 having sum(n) <> 0 order by 1, 2`,
  );
  return {
    engine: timesOf(rows.filter((r) => r.who === 'engine')),
    reviewer: timesOf(rows.filter((r) => r.who === 'reviewer')),
  };
}
