import { LockMode } from '@mikro-orm/core';
import { sha256Hex } from '../../crypto.js';
import { Verification } from '../../entities/verification.entity.js';
import { conflict, notFound } from '../../errors.js';
import { randomBase62 } from '../../ids.js';
import type { ServiceContext } from '../shared/index.js';

export interface RenewedToken {
  verification: Verification;
  clientToken: string;
}

/** A new client token; only its SHA-256 is stored, the token itself is answered once. */
export const newClientToken = (): string => `vct_${randomBase62(40)}`;

/**
 * POST /v1/verifications/{id}/client_token: a fresh token for a session still pending, so an
 * applicant who paused (or lost the link) can go on where they stopped. The previous token
 * stops working at once. A session that was submitted, decided or expired answers 409.
 */
export async function renewClientToken(ctx: ServiceContext, id: string): Promise<RenewedToken> {
  return ctx.em.transactional(async (em) => {
    const verification = /^vs_[0-9A-Za-z]{1,64}$/.test(id)
      ? await em.findOne(Verification, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE })
      : null;
    if (!verification) throw notFound('verification', id);
    if (verification.status !== 'pending' || verification.expiresAt.getTime() <= Date.now()) {
      throw conflict(
        'VERIFICATION_NOT_PENDING',
        `Verification ${id} is ${verification.status === 'pending' ? 'expired' : verification.status}; a client token is issued only while it is pending.`,
        {
          detail: { verification_id: id, status: verification.status },
        },
      );
    }
    const clientToken = newClientToken();
    verification.clientTokenHash = sha256Hex(clientToken);
    await em.flush();
    return { verification, clientToken };
  });
}
