import type { Check } from '../../entities/check.entity.js';
import type { Outcome } from '../verifications/index.js';

/** Reason codes a retry can fix (R6: a retryable rejection never refuses the retry). */
export const RETRYABLE_CODES = new Set([
  'LIVENESS_FAILED',
  'SELFIE_MISMATCH',
  'IMAGE_UNREADABLE',
  'DOCUMENT_EXPIRED',
  'DOCUMENT_TYPE_NOT_ACCEPTED',
  'IMAGE_QUALITY',
]);

/**
 * The spec's roll-up: any required check rejecting gives rejected; otherwise any check in
 * review gives manual_review; otherwise approved. Never a fake approval: an errored check
 * counts with its verdict (review), a required check that was skipped is a review, and no
 * approval without a completed required check (NO_REQUIRED_CHECK_COMPLETED, review).
 */
export function rollUp(checks: Check[]): Outcome {
  const done = checks.filter((c) => c.status === 'completed' || c.status === 'errored');
  const unrun = checks.filter((c) => c.status === 'skipped' && c.required);
  const scores = checks
    .filter((c) => c.status === 'completed')
    .map((c) => c.score)
    .filter((s): s is number => typeof s === 'number');
  const score = scores.length ? Math.round((scores.reduce((a, b) => a + b, 0) / scores.length) * 1000) / 1000 : null;
  const rejecting = done.filter((c) => c.required && c.verdict === 'reject');
  if (rejecting.length > 0) {
    const codes = rejecting.flatMap((c) => c.reasonCodes);
    const retryable = codes.length > 0 && codes.every((code) => RETRYABLE_CODES.has(code));
    return {
      status: 'rejected',
      verdict: 'reject',
      score,
      reasonCodes: codes,
      declineType: retryable ? 'retryable' : 'final',
      changeReason: 'engine',
    };
  }
  const reviewing = [...done.filter((c) => c.verdict === 'review'), ...unrun];
  if (reviewing.length > 0) {
    return {
      status: 'manual_review',
      verdict: 'review',
      score,
      reasonCodes: reviewing.flatMap((c) => c.reasonCodes),
      declineType: null,
      changeReason: 'engine',
    };
  }
  // Defence in depth: whatever path led here (a flow without steps, only optional checks), an
  // approval needs at least one required check that ran and approved.
  if (!done.some((c) => c.required && c.status === 'completed' && c.verdict === 'approve')) {
    return {
      status: 'manual_review',
      verdict: 'review',
      score,
      reasonCodes: ['NO_REQUIRED_CHECK_COMPLETED'],
      declineType: null,
      changeReason: 'engine',
    };
  }
  return { status: 'approved', verdict: 'approve', score, reasonCodes: [], declineType: null, changeReason: 'engine' };
}
