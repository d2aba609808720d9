import { z } from 'zod';

/** The reporting answers of /v1/console (overview, analytics, usage, persons), for the OpenAPI document. */

const timestamp = z.iso.datetime({ offset: true });
const mode = z.enum(['sandbox', 'live']);
const status = z.enum(['pending', 'processing', 'approved', 'rejected', 'manual_review', 'expired']);
const count = z.number().int().min(0);

const breakdown = {
  /** Verifications created in the window. */
  total: count,
  /** Every status, zeros included. */
  by_status: z.object({
    pending: count,
    processing: count,
    approved: count,
    rejected: count,
    manual_review: count,
    expired: count,
  }),
  /** In manual_review: waiting on a person. */
  awaiting_review: count,
  /** Approved or rejected by a reviewer (outcomes that reached a person). */
  decided_by_reviewer: count,
  /** Approved or rejected by the engine or a policy. */
  automated: count,
  /** automated / (approved + rejected + manual_review); null without outcomes. */
  automation_rate: z.number().min(0).max(1).nullable(),
};

export const overview = z
  .object({ object: z.literal('overview'), modes: z.array(mode), since: timestamp.nullable(), ...breakdown })
  .meta({ id: 'ReportingOverview' });

export const analytics = z
  .object({
    object: z.literal('analytics'),
    modes: z.array(mode),
    since: timestamp,
    ...breakdown,
    days: z.array(z.object({ day: z.iso.date(), ...breakdown }).meta({ id: 'ReportingDay' })),
  })
  .meta({ id: 'ReportingAnalytics' });

const checkTypes = z.array(z.object({ check_type: z.string(), count, billable: count }));

export const usageReport = z
  .object({
    object: z.literal('usage_report'),
    modes: z.array(mode),
    since: timestamp.nullable(),
    total: count,
    billable: count,
    by_check_type: checkTypes,
    by_environment: z.array(z.object({ mode, total: count, billable: count, by_check_type: checkTypes })),
  })
  .meta({ id: 'UsageReport' });

const personFields = {
  id: z.string(),
  object: z.literal('person'),
  mode,
  has_identity_link: z.boolean(),
  attempts: count,
  ever_approved: z.boolean(),
  latest: z.object({ id: z.string(), status }).nullable(),
  last_attempt_at: timestamp.nullable(),
  created_at: timestamp,
  updated_at: timestamp,
};

export const person = z.object(personFields).meta({ id: 'Person' });

export const attempt = z
  .object({
    id: z.string(),
    object: z.literal('verification_attempt'),
    mode,
    status,
    verdict: z.enum(['approve', 'reject', 'review']).nullable(),
    score: z.number().nullable(),
    reason_codes: z.array(z.string()),
    change_reason: z.enum(['engine', 'reviewer', 'auto_policy']).nullable(),
    flow: z.string(),
    created_at: timestamp,
    submitted_at: timestamp.nullable(),
    decided_at: timestamp.nullable(),
  })
  .meta({ id: 'VerificationAttempt' });

/** The most recent 100 attempts, newest first; `attempts` counts them all. */
export const personDetail = z.object({ ...personFields, history: z.array(attempt) }).meta({ id: 'PersonDetail' });
