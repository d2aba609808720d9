import { systemFork } from '../orm.js';
import type { JobDefinition } from './job.js';

const BATCH = 1000;

/** Deletes expired Idempotency-Key records (they hold encrypted create answers) in bounded batches. */
export const cleanupIdempotencyJob: JobDefinition = {
  name: 'idempotency-keys.cleanup',
  every: '1 hour',
  handler: async (runtime) => {
    const connection = systemFork(runtime.orm).getConnection();
    for (;;) {
      const deleted = (await connection.execute(
        `delete from idempotency_keys where ctid in (select ctid from idempotency_keys where expires_at <= now() limit ${BATCH}) returning 1`,
      )) as unknown[];
      if (deleted.length < BATCH) return;
    }
  },
};
