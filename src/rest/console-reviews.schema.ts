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

const mark = z.enum(['pass', 'fail', 'unsure']);

export const escalationBody = z.strictObject({
  /** Why the case goes up, 1 to 1,000 characters (internal; never in a webhook). */
  reason: z.string().trim().min(1, 'must not be empty').max(1000),
  /** The escalating reviewer's opinion, not an outcome: approve, reject or none (default). */
  recommendation: z.enum(['approve', 'reject', 'none']).optional(),
  /** Marks per check type (document, liveness, ...); types that did not run are dropped. */
  assessment: z.record(z.string().max(40), mark).optional(),
});

export const escalationReturnBody = z.strictObject({
  /** A note for the reviewer who raised the escalation, at most 1,000 characters. */
  note: z.string().max(1000).optional(),
});

export const assignmentBody = z.strictObject({
  /** The member to route the case to (mem_...), or null for the shared pool. */
  member_id: z.string().max(40).nullable(),
});
