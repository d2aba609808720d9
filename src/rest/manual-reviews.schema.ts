import { z } from 'zod';
import { listQuery, UUID_RE } from './validate.js';

/** Request shapes of the key-authenticated manual-review router; one `/** *\/` line per field. */

export const listManualReviewsQuery = listQuery(UUID_RE, {
  /** Exactly this review status; omitted: only reviews whose verification still awaits a decision. */
  status: z.enum(['queued', 'in_review', 'resolved', 'escalated']).optional(),
});

export const decisionBody = z.strictObject({
  /** `approve` or `reject` settle the case; `review` keeps it queued, or reopens a decided one (verification:reopen). */
  decision: z.enum(['approve', 'reject', 'review']),
  /** The reviewer's note, at most 2000 characters; kept when omitted. */
  notes: z.string().max(2000).optional(),
});
