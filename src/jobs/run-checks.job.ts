import { runChecks, type SessionJobData } from '../services/checks/index.js';
import { RUN_CHECKS_JOB } from '../services/verifications/index.js';
import type { JobDefinition } from './job.js';

/** Runs a processing verification's checks and settles it (queued when it enters processing). */
export const runChecksJob: JobDefinition<SessionJobData> = {
  name: RUN_CHECKS_JOB,
  concurrency: 10,
  // Ahead of any other kind due at the same moment (deliveries above all).
  priority: 'high',
  handler: (runtime, data) => runChecks(runtime, data),
};
