import { cleanupIdempotencyJob } from './cleanup-idempotency.job.js';
import { cleanupSessionsJob } from './cleanup-sessions.job.js';
import { deliverWebhookJob } from './deliver-webhook.job.js';
import { dispatchEventsJob } from './dispatch-events.job.js';
import { expireDueJob } from './expire-due.job.js';
import { expireVerificationJob } from './expire-verification.job.js';
import { foldReportingJob } from './fold-reporting.job.js';
import type { JobDefinition } from './job.js';
import { resumeWebhookEndpointJob } from './resume-webhook-endpoint.job.js';
import { retentionJob } from './retention.job.js';
import { runChecksJob } from './run-checks.job.js';
import { sendOutcomeEmailsJob } from './send-outcome-emails.job.js';
import { sweepVerificationsJob } from './sweep-verifications.job.js';

/** Every job of the service; registerJobs defines each on the one Agenda instance. */
export const JOBS: JobDefinition<any>[] = [
  cleanupSessionsJob,
  cleanupIdempotencyJob,
  runChecksJob,
  expireVerificationJob,
  expireDueJob,
  sweepVerificationsJob,
  dispatchEventsJob,
  deliverWebhookJob,
  resumeWebhookEndpointJob,
  retentionJob,
  sendOutcomeEmailsJob,
  foldReportingJob,
];
