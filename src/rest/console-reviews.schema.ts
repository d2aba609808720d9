import { z } from 'zod';
import { consoleDecisionInput, escalationInput } from '../services/review/index.js';
import { listQuery, UUID_RE } from './validate.js';

/** Request shapes of the console review workbench; one `/** *\/` line per field. */

export const listConsoleReviewsQuery = listQuery(UUID_RE, {
  /** `mine`: only cases the caller holds a live claim on. */
  holding: z.enum(['mine']).optional(),
  /** `sandbox` or `live`; omitted: every environment the seat holds. */
  mode: z.enum(['sandbox', 'live']).optional(),
});

/** The review domain's console decision rules (decision, notes, applicant_message). */
export const consoleDecisionBody = consoleDecisionInput;

/** Claim, release, lock and unlock take no body fields. */
export const emptyBody = z.strictObject({});

/** The review domain's escalation rules (reason, recommendation, assessment). */
export const escalationBody = escalationInput;

export const escalationReturnBody = z.strictObject({
  /** A note for the reviewer who raised the escalation, at most 1,000 characters. */
  note: z.string().max(1000).optional(),
});

export const assignmentBody = z.strictObject({
  /** The member to route the case to (mem_...), or null for the shared pool. */
  member_id: z.string().max(40).nullable(),
});
