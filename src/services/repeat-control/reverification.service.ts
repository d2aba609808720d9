import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ReverificationGrant, type GRANT_REASONS } from '../../entities/reverification-grant.entity.js';
import { Verification } from '../../entities/verification.entity.js';
import { conflict, notFound, parameterMissing } from '../../errors.js';
import type { ServiceContext } from '../shared/index.js';
import { getVerification } from '../verifications/index.js';

export interface GrantInput {
  reason?: (typeof GRANT_REASONS)[number];
  note?: string;
  expires_in_days?: number;
}

const isOpen = (g: ReverificationGrant) => !g.spentAt && !g.revokedAt && g.expiresAt.getTime() > Date.now();

/** The approval's row lock serialises grant calls on it (the set of open grants may be empty, so locking that is not enough). */
async function lockVerification(ctx: ServiceContext, em: EntityManager, verificationId: string): Promise<Verification> {
  const v = await getVerification({ ...ctx, em }, verificationId);
  await em.findOneOrFail(Verification, { id: v.id }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
  return v;
}

/**
 * Permission to verify an approved person again (R9). One open grant per approval: a second
 * call returns it unchanged. It never changes the original approval.
 */
export async function grantReverification(
  ctx: ServiceContext,
  verificationId: string,
  input: GrantInput,
): Promise<ReverificationGrant> {
  const reason = input.reason ?? 'merchant_request';
  if (reason === 'other' && !input.note?.trim()) throw parameterMissing('note');
  return ctx.em.transactional(async (em) => {
    const v = await lockVerification(ctx, em, verificationId);
    if (v.status !== 'approved') {
      throw conflict(
        'VERIFICATION_NOT_APPROVED',
        `Verification ${v.id} is ${v.status}; only an approved verification can be re-verified.`,
        { detail: { verification_id: v.id, status: v.status } },
      );
    }
    const grants = await em.find(ReverificationGrant, { verification: v, spentAt: null, revokedAt: null });
    const open = grants.find(isOpen);
    if (open) return open;
    // Lapsed grants end at their expiry, which frees the one-open-grant slot.
    for (const lapsed of grants) lapsed.revokedAt = lapsed.expiresAt;
    await em.flush();
    return em.create(ReverificationGrant, {
      merchant: v.merchant,
      mode: v.mode,
      verification: v,
      reason,
      note: input.note ?? null,
      expiresAt: new Date(Date.now() + (input.expires_in_days ?? 7) * 86400_000),
    });
  });
}

/** Withdraws the open grant while unused; a spent grant cannot be withdrawn (409 GRANT_ALREADY_SPENT). */
export async function withdrawReverification(
  ctx: ServiceContext,
  verificationId: string,
): Promise<ReverificationGrant> {
  return ctx.em.transactional(async (em) => {
    const v = await lockVerification(ctx, em, verificationId);
    const grants = await em.find(ReverificationGrant, { verification: v }, { orderBy: { createdAt: 'desc' } });
    const open = grants.find(isOpen);
    if (open) {
      open.revokedAt = new Date();
      return open;
    }
    const latest = grants[0];
    if (latest?.spentAt) {
      throw conflict(
        'GRANT_ALREADY_SPENT',
        `The reverification grant ${latest.id} was spent by verification ${latest.spentByVerificationId} and cannot be withdrawn.`,
        {
          detail: { grant_id: latest.id, spent_by: latest.spentByVerificationId },
        },
      );
    }
    throw notFound('reverification_grant');
  });
}
