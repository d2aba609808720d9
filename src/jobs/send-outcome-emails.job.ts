import { sendDueOutcomeEmails } from '../services/review/index.js';
import type { JobDefinition } from './job.js';

/** Sends applicant outcome emails whose hold-back window has passed, in bounded batches. */
export const sendOutcomeEmailsJob: JobDefinition = {
  name: 'applicant-notifications.send',
  every: '10 seconds',
  concurrency: 1,
  handler: async (runtime) => {
    while ((await sendDueOutcomeEmails(runtime)) === 200 && !runtime.jobs.isStopping);
  },
};
