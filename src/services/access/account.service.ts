import type { EntityManager } from '@mikro-orm/postgresql';
import { sha256Hex } from '../../crypto.js';
import { ApiKey } from '../../entities/api-key.entity.js';
import { Merchant } from '../../entities/merchant.entity.js';
import { randomBase62 } from '../../ids.js';
import { generateSecretKey } from './api-key.service.js';
import { createMember, openSession } from './member.service.js';
import { KEY_PERMISSIONS, MEMBER_PERMISSIONS } from './permissions.js';

export interface BootstrapResult {
  merchant: { id: string };
  member: { id: string; email: string; password: string; session_token: string };
  keys: { sandbox: { id: string; secret_key: string }; live: { id: string; secret_key: string } };
}

/**
 * A new, independent account: merchant, an owner member holding every member permission and
 * both environments, and one sandbox and one live key holding every key permission.
 */
export async function bootstrapAccount(
  em: EntityManager,
  options: { name?: string; sessionTtlSeconds: number },
): Promise<BootstrapResult> {
  return em.transactional(async (tx) => {
    const suffix = randomBase62(10).toLowerCase();
    const merchant = tx.create(Merchant, { name: options.name ?? `Account ${suffix}`, slug: `acct-${suffix}` });
    await tx.flush();
    const password = randomBase62(24);
    const member = await createMember(tx, {
      merchantId: merchant.id,
      email: `owner-${suffix}@${merchant.slug}.example.com`,
      name: 'Owner',
      password,
      permissions: [...MEMBER_PERMISSIONS],
      environments: ['sandbox', 'live'],
    });
    const session = await openSession(tx, member, options.sessionTtlSeconds);
    const keys = {} as BootstrapResult['keys'];
    for (const mode of ['sandbox', 'live'] as const) {
      const secret = generateSecretKey(mode);
      const key = tx.create(ApiKey, {
        merchant,
        mode,
        name: `Bootstrap ${mode} key`,
        secretHash: sha256Hex(secret),
        keyPrefix: secret.slice(0, 12),
        permissions: [...KEY_PERMISSIONS],
      });
      keys[mode] = { id: key.id, secret_key: secret };
    }
    await tx.flush();
    return {
      merchant: { id: merchant.id },
      member: { id: member.id, email: member.email, password, session_token: session.token },
      keys,
    };
  });
}
