import { LockMode } from '@mikro-orm/core';
import type { SessionJobData } from '../services/checks/index.js';
import { Verification } from '../entities/verification.entity.js';
import { scopedFork } from '../orm.js';
import type { Runtime } from '../runtime.js';
import { EXPIRE_JOB, expire, OPEN_STATUSES } from '../services/verifications/index.js';
import type { JobDefinition } from './job.js';

/** Expires one session if it is still pending or processing at its expires_at; a no-op otherwise. */
export async function expireIfDue(runtime: Runtime, data: SessionJobData): Promise<boolean> {
  const em = scopedFork(runtime.orm, { merchantId: data.merchantId, modes: [data.mode] });
  return em.transactional(async (tx) => {
    const v = await tx.findOne(Verification, { id: data.verificationId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!v || !OPEN_STATUSES.includes(v.status) || v.expiresAt.getTime() > Date.now()) return false;
    expire(tx, v);
    return true;
  });
}

/**
 * One session's expiry job. New sessions share a per-second expire-due job instead
 * (expire-due.job.ts); this one stays defined for jobs already in the store.
 */
export const expireVerificationJob: JobDefinition<SessionJobData> = {
  name: EXPIRE_JOB,
  concurrency: 10,
  handler: async (runtime, data) => {
    await expireIfDue(runtime, data);
  },
};
