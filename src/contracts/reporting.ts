import { z } from 'zod';
import { mode, nullableTimestamp, timestamp, type Out } from './common.js';

/** The key API's usage summary and the console's reporting answers (overview, analytics, usage, persons). */

const status = z.enum(['pending', 'processing', 'approved', 'rejected', 'manual_review', 'expired']);
const count = z.number().int().min(0);

const breakdown = {
  total: count.meta({ description: 'Verifications created in the window.' }),
  by_status: z
    .object({
      pending: count,
      processing: count,
      approved: count,
      rejected: count,
      manual_review: count,
      expired: count,
    })
    .meta({ description: 'Every status, zeros included.' }),
  awaiting_review: count.meta({ description: 'In manual_review: waiting on a person.' }),
  decided_by_reviewer: count.meta({
    description: 'Approved or rejected by a reviewer (outcomes that reached a person).',
  }),
  automated: count.meta({ description: 'Approved or rejected by the engine or a policy.' }),
  automation_rate: z
    .number()
    .min(0)
    .max(1)
    .nullable()
    .meta({ description: 'automated / (approved + rejected + manual_review); null without outcomes.' }),
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

export const personDetail = z
  .object({
    ...personFields,
    history: z
      .array(attempt)
      .meta({ description: 'The most recent 100 attempts, newest first; `attempts` counts them all.' }),
  })
  .meta({ id: 'PersonDetail' });

export const usageSummary = z
  .object({
    object: z.literal('usage_summary'),
    since: nullableTimestamp,
    total: z.number().int(),
    billable: z.number().int(),
    by_check_type: z.array(z.object({ check_type: z.string(), count: z.number().int(), billable: z.number().int() })),
  })
  .meta({ id: 'UsageSummary' });

export type OverviewOut = Out<typeof overview>;
export type AnalyticsOut = Out<typeof analytics>;
export type UsageReportOut = Out<typeof usageReport>;
export type PersonOut = Out<typeof person>;
export type AttemptOut = Out<typeof attempt>;
export type PersonDetailOut = Out<typeof personDetail>;
export type UsageSummaryOut = Out<typeof usageSummary>;
