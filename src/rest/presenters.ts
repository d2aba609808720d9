import type { ApiKey } from '../entities/api-key.entity.js';
import type { Entitlements, MerchantView } from '../services/access/index.js';
import type { Page } from '../services/shared/index.js';
import type { ApiKeyOut, EntitlementsOut, MerchantOut } from '../contracts/index.js';

/**
 * Small pure functions that keep the `/v1` JSON stable and apart from the GraphQL types. Each
 * returns its contract's type (src/contracts), so a field missing or added does not compile.
 */
/** A date as the API answers it (RFC 3339 in UTC), or null. */
export const iso = (date: Date | null | undefined): string | null => (date ? date.toISOString() : null);
/** A date that is always there, as the API answers it. */
export const isoAt = (date: Date): string => date.toISOString();

/** The list envelope (`listOf` in src/contracts/common.ts). */
export interface ListOut<O> {
  object: 'list';
  data: O[];
  has_more: boolean;
  next_cursor: string | null;
}

export function presentList<T, O>(page: Page<T>, present: (item: T) => O): ListOut<O> {
  return { object: 'list', data: page.data.map(present), has_more: page.hasMore, next_cursor: page.nextCursor };
}

export function presentApiKey(key: ApiKey, secretKey?: string): ApiKeyOut {
  return {
    id: key.id,
    object: 'api_key',
    name: key.name,
    environment: key.mode,
    status: key.status,
    key_prefix: key.keyPrefix,
    permissions: key.permissions,
    access: key.access,
    created_at: iso(key.createdAt),
    last_used_at: iso(key.lastUsedAt),
    expires_at: iso(key.expiresAt),
    revoked_at: iso(key.revokedAt),
    ...(secretKey ? { secret_key: secretKey } : {}),
  };
}

export function presentMerchant(merchant: MerchantView): MerchantOut {
  return {
    id: merchant.id,
    object: 'merchant',
    name: merchant.name,
    slug: merchant.slug,
    status: merchant.status,
    tier: merchant.tier,
    created_at: iso(merchant.createdAt),
  };
}

export function presentEntitlements(entitlements: Entitlements): EntitlementsOut {
  return { object: 'entitlements', ...entitlements };
}
