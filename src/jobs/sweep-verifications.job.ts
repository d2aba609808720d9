import { withConnection } from '../services/shared/index.js';
import type { SessionJobData } from '../services/checks/index.js';
import type { Runtime } from '../runtime.js';
import { RUN_CHECKS_JOB } from '../services/verifications/index.js';
import { expireDueSessions } from './expire-due.job.js';
import type { JobDefinition } from './job.js';

const BATCH = 200;

interface Row {
  id: string;
  merchant_id: string;
  mode: 'sandbox' | 'live';
}

/**
 * A bounded periodic sweep so a lost job cannot leave a session open forever: expires open
 * sessions past expires_at, and re-queues processing sessions whose checks stalled.
 */
export async function sweepVerifications(runtime: Runtime): Promise<{ expired: number; requeued: number }> {
  const { expired } = await expireDueSessions(runtime);
  const stalled = await withConnection(runtime.orm, (sql) =>
    sql.query<Row>(
      `select id, merchant_id, mode from verifications where status = 'processing' and updated_at < now() - interval '2 minutes' order by updated_at limit $1`,
      [BATCH],
    ),
  );
  for (const row of stalled) {
    await runtime.jobs.now<SessionJobData>(RUN_CHECKS_JOB, {
      verificationId: row.id,
      merchantId: row.merchant_id,
      mode: row.mode,
    });
  }
  return { expired, requeued: stalled.length };
}

export const sweepVerificationsJob: JobDefinition = {
  name: 'verifications.sweep',
  every: '1 minute',
  handler: async (runtime) => {
    await sweepVerifications(runtime);
  },
};
