import type {
  Analytics,
  Attempt,
  Overview,
  Person,
  PersonSummary,
  StatusBreakdown,
  UsageByCheckType,
  UsageReport,
} from '../services/reporting/index.js';
import type {
  AnalyticsOut,
  AttemptOut,
  OverviewOut,
  PersonDetailOut,
  PersonOut,
  UsageReportOut,
} from '../contracts/index.js';
import { iso, isoAt } from './presenters.js';

function presentBreakdown(b: StatusBreakdown) {
  return {
    total: b.total,
    by_status: b.byStatus,
    awaiting_review: b.awaitingReview,
    decided_by_reviewer: b.decidedByReviewer,
    automated: b.automated,
    automation_rate: b.automationRate,
  };
}

export const presentOverview = (o: Overview): OverviewOut => ({
  object: 'overview',
  modes: o.modes,
  since: iso(o.since),
  ...presentBreakdown(o),
});

export const presentAnalytics = (a: Analytics): AnalyticsOut => ({
  object: 'analytics',
  modes: a.modes,
  // The analytics window always has a start (the filter's or the default): only the overview's is open.
  since: isoAt(a.since!),
  ...presentBreakdown(a),
  days: a.days.map((d) => ({ day: d.day, ...presentBreakdown(d) })),
});

const presentCheckTypes = (rows: UsageByCheckType[]) =>
  rows.map((r) => ({ check_type: r.checkType, count: r.count, billable: r.billable }));

export const presentUsageReport = (u: UsageReport): UsageReportOut => ({
  object: 'usage_report',
  modes: u.modes,
  since: iso(u.since),
  total: u.total,
  billable: u.billable,
  by_check_type: presentCheckTypes(u.byCheckType),
  by_environment: u.byEnvironment.map((e) => ({
    mode: e.mode,
    total: e.total,
    billable: e.billable,
    by_check_type: presentCheckTypes(e.byCheckType),
  })),
});

export const presentPerson = (p: PersonSummary): PersonOut => ({
  id: p.id,
  object: 'person',
  mode: p.mode,
  has_identity_link: p.hasIdentityLink,
  attempts: p.attempts,
  ever_approved: p.everApproved,
  // A latest id comes with its status (one joined row).
  latest: p.latestVerificationId ? { id: p.latestVerificationId, status: p.latestStatus! } : null,
  last_attempt_at: iso(p.lastAttemptAt),
  created_at: isoAt(p.createdAt),
  updated_at: isoAt(p.updatedAt),
});

const presentAttempt = (a: Attempt): AttemptOut => ({
  id: a.id,
  object: 'verification_attempt',
  mode: a.mode,
  status: a.status,
  verdict: a.verdict,
  score: a.score,
  reason_codes: a.reasonCodes,
  change_reason: a.changeReason,
  flow: a.flowId,
  created_at: isoAt(a.createdAt),
  submitted_at: iso(a.submittedAt),
  decided_at: iso(a.decidedAt),
});

export const presentPersonDetail = (p: Person): PersonDetailOut => ({
  ...presentPerson(p),
  history: p.history.map(presentAttempt),
});
