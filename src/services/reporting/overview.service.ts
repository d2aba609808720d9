import type { Mode } from '../../config.js';
import type { VerificationStatus } from '../../entities/verification.entity.js';
import type { ServiceContext } from '../shared/index.js';
import { queryVerificationKeys } from './rollup-source.js';
import { addDays, defaultAnalyticsSince, reportingScope, utcDay, type ReportingFilter } from './window.js';

export const STATUSES: VerificationStatus[] = [
  'pending',
  'processing',
  'approved',
  'rejected',
  'manual_review',
  'expired',
];

/** Status breakdown of a set of verifications and who settled their outcomes. */
export interface StatusBreakdown {
  total: number;
  byStatus: Record<VerificationStatus, number>;
  /** In manual_review: waiting on a person now. */
  awaitingReview: number;
  /** Approved or rejected by a reviewer: the outcomes that reached a person. */
  decidedByReviewer: number;
  /** Approved or rejected by the engine or a policy, no person involved. */
  automated: number;
  /** automated / (approved + rejected + manual_review); null when there is no outcome yet. */
  automationRate: number | null;
}

export interface Overview extends StatusBreakdown {
  modes: Mode[];
  since: Date | null;
}

export interface DayBucket extends StatusBreakdown {
  day: string;
}

export interface Analytics extends Overview {
  days: DayBucket[];
}

interface StatusRow {
  status: VerificationStatus;
  change_reason: string;
  n: number;
}

const emptyStatuses = (): Record<VerificationStatus, number> =>
  Object.fromEntries(STATUSES.map((s) => [s, 0])) as Record<VerificationStatus, number>;

/** Folds (status, who settled it, count) rows into one breakdown. */
export function breakdownOf(rows: StatusRow[]): StatusBreakdown {
  const byStatus = emptyStatuses();
  let reviewer = 0;
  let automated = 0;
  for (const row of rows) {
    byStatus[row.status] = (byStatus[row.status] ?? 0) + row.n;
    const decided = row.status === 'approved' || row.status === 'rejected';
    if (decided && row.change_reason === 'reviewer') reviewer += row.n;
    if (decided && (row.change_reason === 'engine' || row.change_reason === 'auto_policy')) automated += row.n;
  }
  const outcomes = byStatus.approved + byStatus.rejected + byStatus.manual_review;
  return {
    total: STATUSES.reduce((sum, s) => sum + byStatus[s], 0),
    byStatus,
    awaitingReview: byStatus.manual_review,
    decidedByReviewer: reviewer,
    automated,
    automationRate: outcomes === 0 ? null : automated / outcomes,
  };
}

/** GET /v1/console/overview: the status breakdown of the verifications created since `since` (default: all). */
export async function reportingOverview(ctx: ServiceContext, filter: ReportingFilter): Promise<Overview> {
  const scoped = reportingScope(ctx, filter.mode);
  const since = filter.since ?? null;
  if (!scoped) return { modes: [], since, ...breakdownOf([]) };
  const rows = await queryVerificationKeys<StatusRow>(
    scoped,
    'status',
    filter,
    (source) =>
      `select status, change_reason, sum(n)::int as n from ${source} s group by status, change_reason having sum(n) <> 0`,
  );
  return { modes: scoped.modes, since, ...breakdownOf(rows) };
}

/**
 * GET /v1/console/analytics: the overview bucketed by UTC day of creation (decisions.md), from
 * the first day of the window (default 30 days ago) or the first day with data, to today.
 */
export async function reportingAnalytics(
  ctx: ServiceContext,
  filter: ReportingFilter,
  now = new Date(),
): Promise<Analytics> {
  const since = filter.since ?? defaultAnalyticsSince(now.getTime());
  const scoped = reportingScope(ctx, filter.mode);
  if (!scoped) return { modes: [], since, ...breakdownOf([]), days: [] };
  const rows = await queryVerificationKeys<StatusRow & { day: string }>(
    scoped,
    'status',
    { ...filter, since },
    (source) =>
      `select to_char(day, 'YYYY-MM-DD') as day, status, change_reason, sum(n)::int as n from ${source} s
      group by day, status, change_reason having sum(n) <> 0 order by day`,
  );
  const byDay = new Map<string, StatusRow[]>();
  for (const row of rows) byDay.set(row.day, [...(byDay.get(row.day) ?? []), row]);
  const days: DayBucket[] = [];
  const first = rows[0]?.day;
  const today = utcDay(now);
  if (first)
    for (let day = first; day <= today; day = addDays(day, 1)) days.push({ day, ...breakdownOf(byDay.get(day) ?? []) });
  return { modes: scoped.modes, since, ...breakdownOf(rows), days };
}

export interface Funnel {
  created: number;
  /** Reached processing: the applicant (or the API) submitted what the flow needs. */
  submitted: number;
  /** Approved or rejected. */
  decided: number;
}

/** created -> submitted -> decided over the same window and filters. */
export async function reportingFunnel(ctx: ServiceContext, filter: ReportingFilter): Promise<Funnel> {
  const scoped = reportingScope(ctx, filter.mode);
  if (!scoped) return { created: 0, submitted: 0, decided: 0 };
  const [row] = await queryVerificationKeys<Funnel>(
    scoped,
    'status',
    filter,
    (source) =>
      `select coalesce(sum(n), 0)::int as created, coalesce(sum(n) filter (where submitted), 0)::int as submitted,
            coalesce(sum(n) filter (where status in ('approved', 'rejected')), 0)::int as decided from ${source} s`,
  );
  return row!;
}

export interface ReasonCodeCount {
  reasonCode: string;
  count: number;
  byStatus: Partial<Record<VerificationStatus, number>>;
}

/** How many verifications carry each reason code (a verification with two codes counts under each), most frequent first. */
export async function reasonCodeBreakdown(ctx: ServiceContext, filter: ReportingFilter): Promise<ReasonCodeCount[]> {
  const scoped = reportingScope(ctx, filter.mode);
  if (!scoped) return [];
  const rows = await queryVerificationKeys<{ reason_code: string; status: VerificationStatus; n: number }>(
    scoped,
    'reasons',
    filter,
    (source) =>
      `select reason_code, status, sum(n)::int as n from ${source} s group by reason_code, status having sum(n) <> 0`,
  );
  const out = new Map<string, ReasonCodeCount>();
  for (const row of rows) {
    const entry = out.get(row.reason_code) ?? { reasonCode: row.reason_code, count: 0, byStatus: {} };
    entry.count += row.n;
    entry.byStatus[row.status] = row.n;
    out.set(row.reason_code, entry);
  }
  return [...out.values()].sort((a, b) => b.count - a.count || a.reasonCode.localeCompare(b.reasonCode));
}
