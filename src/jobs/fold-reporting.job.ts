import { foldReportingDeltas } from '../services/reporting/index.js';
import { withConnection } from '../services/shared/index.js';
import type { JobDefinition } from './job.js';

/**
 * Folds the reporting deltas the triggers append into the rollups. Answers are exact without
 * it (readers add the pending deltas); it keeps the deltas few so reads stay fast.
 */
export const foldReportingJob: JobDefinition = {
  name: 'reporting.fold',
  every: '30 seconds',
  handler: async (runtime) => {
    await withConnection(runtime.orm, (sql) => foldReportingDeltas(sql));
  },
};
