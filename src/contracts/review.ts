import { z } from 'zod';
import { mode, nullableTimestamp, type Out } from './common.js';

/** Manual reviews: the key API's resource, and the console queue's row built on it. */

const manualReviewFields = {
  id: z.string(),
  object: z.literal('manual_review'),
  session_id: z.string().meta({ description: 'The verification under review.' }),
  status: z.string(),
  decision: z.string().nullable(),
  notes: z.string().nullable(),
  reviewed_at: nullableTimestamp,
  created_at: nullableTimestamp,
};

/** Ids and decisions only: never applicant data nor who decided. */
export const manualReview = z.object(manualReviewFields).meta({ id: 'ManualReview' });

export const escalation = z.object({
  reason: z.string(),
  recommendation: z.enum(['approve', 'reject', 'none']),
  assessment: z.record(z.string(), z.enum(['pass', 'fail', 'unsure'])),
  escalated_by: z.string(),
  escalated_at: z.string(),
  returned_by: z.string().nullable(),
  return_note: z.string().nullable(),
});

export const consoleReview = z
  .object({
    ...manualReviewFields,
    mode,
    claimed_by: z
      .string()
      .nullable()
      .meta({ description: 'The member holding a live claim; null when none or lapsed.' }),
    claim_expires_at: nullableTimestamp,
    assigned_to: z.string().nullable(),
    escalation: escalation.nullable(),
    raised_by_member_id: z
      .string()
      .nullable()
      .optional()
      .meta({ description: 'Escalation return only: who raised the escalation.' }),
    being_reviewed_by: z
      .array(z.object({ member_id: z.string(), name: z.string(), since: z.string() }))
      .meta({ description: 'Live presence markers (advisory).' }),
  })
  .meta({ id: 'ConsoleReview' });

export const reviewPolicy = z
  .object({
    object: z.literal('review_policy'),
    claim_required: z.boolean(),
    claim_lease_minutes: z.number().int(),
    presence_ttl_ms: z.number().int(),
    presence_heartbeat_ms: z.number().int(),
  })
  .meta({ id: 'ReviewPolicy' });

export const reviewLock = z
  .object({ object: z.literal('review_lock'), member_id: z.string(), expires_at: z.string() })
  .meta({ id: 'ReviewLock' });

export const reviewLockDeleted = z
  .object({ object: z.literal('review_lock'), deleted: z.literal(true) })
  .meta({ id: 'ReviewLockDeleted' });

export type ManualReviewOut = Out<typeof manualReview>;
export type ConsoleReviewOut = Out<typeof consoleReview>;
export type ReviewPolicyOut = Out<typeof reviewPolicy>;
export type ReviewLockOut = Out<typeof reviewLock>;
export type ReviewLockDeletedOut = Out<typeof reviewLockDeleted>;
