import type { ApiKey } from '../entities/api-key.entity.js';
import type { Entitlements, MerchantView } from '../services/access/index.js';
import type { Page } from '../services/shared/index.js';

/** Small pure functions that keep the `/v1` JSON stable and apart from the GraphQL types. */
/** A date as the API answers it (RFC 3339 in UTC), or null. */
export const iso = (date: Date | null | undefined): string | null => (date ? date.toISOString() : null);

export function presentList<T>(page: Page<T>, present: (item: T) => unknown) {
  return { object: 'list', data: page.data.map(present), has_more: page.hasMore, next_cursor: page.nextCursor };
}

export function presentApiKey(key: ApiKey, secretKey?: string) {
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

export function presentMerchant(merchant: MerchantView) {
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

export function presentEntitlements(entitlements: Entitlements) {
  return { object: 'entitlements', ...entitlements };
}
