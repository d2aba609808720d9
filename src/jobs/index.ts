import { cleanupSessionsJob } from './cleanup-sessions.job.js';
import type { JobDefinition } from './job.js';

/** Every job of the service; registerJobs defines each on the one Agenda instance. */
export const JOBS: JobDefinition<any>[] = [cleanupSessionsJob];
