import type { Runtime } from '../runtime.js';
import { withConnection } from '../services/shared/index.js';
import { EXPIRE_DUE_JOB } from '../services/verifications/index.js';
import { expireIfDue } from './expire-verification.job.js';
import type { JobDefinition } from './job.js';

const BATCH = 200;
const MAX_BATCHES = 10;

interface Row {
  id: string;
  merchant_id: string;
  mode: 'sandbox' | 'live';
}

/**
 * Expires open sessions past expires_at, oldest first, in at most MAX_BATCHES batches of
 * BATCH; `more` says whether due sessions were left for a later run.
 */
export async function expireDueSessions(runtime: Runtime): Promise<{ expired: number; more: boolean }> {
  let expired = 0;
  for (let batch = 0; batch < MAX_BATCHES; batch++) {
    // Across accounts by design: each due session is then expired in its own scoped transaction.
    const due = await withConnection(runtime.orm, (sql) =>
      sql.query<Row>(
        `select id, merchant_id, mode from verifications where status in ('pending', 'processing') and expires_at <= now() order by expires_at limit $1`,
        [BATCH],
      ),
    );
    for (const row of due) {
      if (await expireIfDue(runtime, { verificationId: row.id, merchantId: row.merchant_id, mode: row.mode }))
        expired++;
    }
    if (due.length < BATCH) return { expired, more: false };
  }
  return { expired, more: true };
}

/**
 * Scheduled (coalesced per second, see Jobs.scheduleCoalesced) at the expires_at of the
 * sessions created in that second: one job expires them all instead of one job each. A
 * backlog larger than one run's bound queues another run at once; the sweep is the backstop.
 */
export const expireDueJob: JobDefinition = {
  name: EXPIRE_DUE_JOB,
  concurrency: 1,
  handler: async (runtime) => {
    const { more } = await expireDueSessions(runtime);
    if (more) await runtime.jobs.now(EXPIRE_DUE_JOB, {});
  },
};
