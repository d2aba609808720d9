import type { ManualReview } from '../entities/manual-review.entity.js';
import type { ManualReviewOut } from '../contracts/index.js';
import { iso } from './presenters.js';

/** `/v1` JSON of a Manual review: ids and decisions only, never applicant data nor who decided. */
export function presentManualReview(review: ManualReview): ManualReviewOut {
  return {
    id: review.id,
    object: 'manual_review',
    session_id: review.verification.id,
    status: review.status,
    decision: review.decision ?? null,
    notes: review.notes ?? null,
    reviewed_at: iso(review.reviewedAt),
    created_at: iso(review.createdAt),
  };
}
