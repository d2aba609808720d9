import { MemberSession } from '../entities/member-session.entity.js';
import { systemFork } from '../orm.js';
import type { JobDefinition } from './job.js';

const BATCH = 1000;

/** Deletes console sessions that expired or were signed out more than a day ago, in bounded batches. */
export const cleanupSessionsJob: JobDefinition = {
  name: 'member-sessions.cleanup',
  every: '1 hour',
  handler: async (runtime) => {
    const em = systemFork(runtime.orm);
    const cutoff = new Date(Date.now() - 24 * 3600 * 1000);
    for (;;) {
      const stale = await em.find(
        MemberSession,
        { $or: [{ expiresAt: { $lt: cutoff } }, { revokedAt: { $lt: cutoff } }] },
        { filters: false, fields: ['id'], limit: BATCH },
      );
      if (stale.length === 0) return;
      await em.nativeDelete(MemberSession, { id: { $in: stale.map((s) => s.id) } }, { filters: false });
      em.clear();
      if (stale.length < BATCH) return;
    }
  },
};
