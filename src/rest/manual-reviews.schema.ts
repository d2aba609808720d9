import { z } from 'zod';
import { decisionInput } from '../services/review/index.js';
import { listQuery, UUID_RE } from './validate.js';

/** Request shapes of the key-authenticated manual-review router; one `/** *\/` line per field. */

export const listManualReviewsQuery = listQuery(UUID_RE, {
  /** Exactly this review status; omitted: only reviews whose verification still awaits a decision. */
  status: z.enum(['queued', 'in_review', 'resolved', 'escalated']).optional(),
});

/** The review domain's decision rules (decision, notes). */
export const decisionBody = decisionInput;
