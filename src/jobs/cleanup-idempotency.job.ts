import { withConnection } from '../services/shared/index.js';
import type { JobDefinition } from './job.js';

const BATCH = 1000;

/** Deletes expired Idempotency-Key records (they hold encrypted create answers) in bounded batches. */
export const cleanupIdempotencyJob: JobDefinition = {
  name: 'idempotency-keys.cleanup',
  every: '1 hour',
  handler: async (runtime) => {
    for (;;) {
      const deleted = await withConnection(runtime.orm, (sql) =>
        sql.query(
          `delete from idempotency_keys where ctid in (select ctid from idempotency_keys where expires_at <= now() limit $1) returning 1`,
          [BATCH],
        ),
      );
      if (deleted.length < BATCH) return;
    }
  },
};
