import { z } from 'zod';
import { decisionBody } from './manual-reviews.schema.js';
import { listQuery, UUID_RE } from './validate.js';

/** Request shapes of the console review workbench; one `/** *\/` line per field. */

export const listConsoleReviewsQuery = listQuery(UUID_RE, {
  /** `mine`: only cases the caller holds a live claim on. */
  holding: z.enum(['mine']).optional(),
  /** `sandbox` or `live`; omitted: every environment the seat holds. */
  mode: z.enum(['sandbox', 'live']).optional(),
});

/** The key API's decision body (decision, notes); `applicant_message` is not accepted yet (README). */
export const consoleDecisionBody = decisionBody;

/** Claim, release, lock and unlock take no body fields. */
export const emptyBody = z.strictObject({});
