import { z } from 'zod';

/** A decision on a case, as the key API takes it (POST /v1/manual-reviews/{id}/decision). */
export const decisionInput = z.strictObject({
  /** `approve` or `reject` settle the case; `review` keeps it queued, or reopens a decided one (verification:reopen). */
  decision: z.enum(['approve', 'reject', 'review']),
  /** The reviewer's note, at most 2000 characters; kept when omitted. */
  notes: z.string().max(2000).optional(),
});

/** A reviewer's decision in the back office (console and GraphQL): the key API's plus the applicant's message. */
export const consoleDecisionInput = decisionInput.extend({
  /** Opt-in text shown in the applicant's outcome email under the outcome, at most 1,000 characters; never in webhooks or notes. */
  applicant_message: z.string().trim().min(1).max(1000).optional(),
});
