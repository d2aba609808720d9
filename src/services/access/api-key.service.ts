import type { Mode } from '../../config.js';
import { sha256Hex } from '../../crypto.js';
import { ApiKey, type KeyAccess } from '../../entities/api-key.entity.js';
import { Merchant } from '../../entities/merchant.entity.js';
import { notFound, parameterInvalid, permissionError } from '../../errors.js';
import { randomBase62, UUID_PATTERN } from '../../ids.js';
import { type ServiceContext, paginate, type Page, type PageParams } from '../shared/index.js';
import {
  authorize,
  DEFAULT_KEY_PERMISSIONS,
  isKeyPermission,
  MEMBER_PERMISSION_FOR_KEY_SCOPE,
  type KeyPermission,
} from './permissions.js';
import { recordActivity } from '../audit/index.js';

export const SECRET_KEY_PATTERN = /^sk_(test|live)_[0-9A-Za-z]{32}$/;

export const modeOfSecret = (secret: string): Mode => (secret.startsWith('sk_live_') ? 'live' : 'sandbox');

/** `sk_live_` / `sk_test_` + 32 random base62 characters (decisions.md). */
export function generateSecretKey(mode: Mode): string {
  return `${mode === 'live' ? 'sk_live_' : 'sk_test_'}${randomBase62(32)}`;
}

export interface CreateApiKeyInput {
  name: string;
  environment: Mode;
  permissions?: string[];
  access?: KeyAccess;
  expiresAt?: Date | null;
}

export interface CreatedApiKey {
  key: ApiKey;
  /** Shown exactly once; only its SHA-256 is stored. */
  secretKey: string;
}

/** Keys of the environments the caller may see, newest first. */
export async function listApiKeys(ctx: ServiceContext, params: PageParams, environment?: Mode): Promise<Page<ApiKey>> {
  const where = environment ? { mode: environment } : {};
  return paginate(ctx, ApiKey, where, params);
}

export async function getApiKey(ctx: ServiceContext, id: string): Promise<ApiKey> {
  const key = UUID_PATTERN.test(id) ? await ctx.em.findOne(ApiKey, { id }) : null;
  if (!key) throw notFound('api_key', id);
  return key;
}

/**
 * Mints a key. A key caller mints only in its own environment and never grants a scope it
 * does not hold itself (a sandbox key must not mint live access or widen its own rights); a
 * member grants applicant:read only when holding verifications.reveal.
 */
export async function createApiKey(ctx: ServiceContext, input: CreateApiKeyInput): Promise<CreatedApiKey> {
  await mayManageKeys(ctx);
  const created = await mintApiKey(ctx, input);
  await recordKeyActivity(ctx, 'api_key.created', created.key);
  return created;
}

/**
 * decisions.md (keys from a seat): a member creates, revokes and rotates keys only with
 * `keys.manage`. A key caller is governed by its scope on the route (settings:write).
 */
async function mayManageKeys(ctx: ServiceContext): Promise<void> {
  if (ctx.caller.kind === 'member') await authorize(ctx, { permission: 'keys.manage', write: true });
}

/** The activity row of a key's creation, revocation or rotation: the key's id, name and prefix, never its secret. */
async function recordKeyActivity(
  ctx: ServiceContext,
  action: string,
  key: ApiKey,
  detail: Record<string, string> = {},
): Promise<void> {
  await recordActivity(ctx, {
    action,
    mode: key.mode,
    targetType: 'api_key',
    targetId: key.id,
    detail: { name: key.name, key_prefix: key.keyPrefix, ...detail },
  });
}

async function mintApiKey(ctx: ServiceContext, input: CreateApiKeyInput): Promise<CreatedApiKey> {
  const name = input.name.trim();
  if (!name) throw parameterInvalid('name', 'name must not be empty.');
  if (!ctx.modes.includes(input.environment)) {
    if (ctx.caller.kind === 'key') {
      throw parameterInvalid('environment', `A ${ctx.caller.mode} key can only create ${ctx.caller.mode} keys.`);
    }
    throw permissionError('ENVIRONMENT_NOT_HELD', `Your seat does not hold the ${input.environment} environment.`);
  }
  // Without a list, the environment's defaults, less what a member's seat may not grant.
  const grantable = (p: KeyPermission) =>
    ctx.caller.kind !== 'member' ||
    !MEMBER_PERMISSION_FOR_KEY_SCOPE[p] ||
    ctx.caller.permissions.includes(MEMBER_PERMISSION_FOR_KEY_SCOPE[p]!);
  const permissions = input.permissions
    ? [...new Set(input.permissions)]
    : DEFAULT_KEY_PERMISSIONS[input.environment].filter(grantable);
  const unknown = permissions.find((p) => !isKeyPermission(p));
  if (unknown) throw parameterInvalid('permissions', `Unknown permission "${unknown}".`);
  if (ctx.caller.kind === 'key') {
    const callerPermissions = ctx.caller.permissions;
    const beyond = permissions.filter((p) => !callerPermissions.includes(p as KeyPermission));
    if (beyond.length > 0) {
      throw permissionError(
        'INSUFFICIENT_PERMISSIONS',
        `A key cannot grant permissions it does not hold: ${beyond.join(', ')}.`,
      );
    }
  }
  // A key holding applicant:read reads identity without the member's reveal permission or its
  // audit trail, one with settings:write changes what the seat may not: each scope needs the
  // member permission that covers it (MEMBER_PERMISSION_FOR_KEY_SCOPE).
  if (ctx.caller.kind === 'member') {
    const held = ctx.caller.permissions;
    const missing = permissions.filter((p) => {
      const needed = MEMBER_PERMISSION_FOR_KEY_SCOPE[p as KeyPermission];
      return needed !== undefined && !held.includes(needed);
    });
    if (missing.length > 0) {
      const needs = missing.map((p) => `${p} needs ${MEMBER_PERMISSION_FOR_KEY_SCOPE[p as KeyPermission]}`).join(', ');
      throw permissionError('INSUFFICIENT_PERMISSIONS', `Your seat cannot mint a key with these scopes: ${needs}.`);
    }
  }
  if (input.expiresAt && input.expiresAt.getTime() <= Date.now()) {
    throw parameterInvalid('expires_at', 'expires_at must be in the future.');
  }
  const secretKey = generateSecretKey(input.environment);
  const key = ctx.em.create(ApiKey, {
    merchant: ctx.em.getReference(Merchant, ctx.merchantId),
    mode: input.environment,
    name,
    secretHash: sha256Hex(secretKey),
    keyPrefix: secretKey.slice(0, 12),
    permissions,
    access: input.access ?? 'read_write',
    expiresAt: input.expiresAt ?? null,
  });
  await ctx.em.flush();
  return { key, secretKey };
}

/** Revokes for good; the row is kept. Revoking an already revoked key returns it unchanged (and records nothing). */
export async function revokeApiKey(ctx: ServiceContext, id: string): Promise<ApiKey> {
  await mayManageKeys(ctx);
  const key = await getApiKey(ctx, id);
  if (key.status !== 'revoked') {
    key.status = 'revoked';
    key.revokedAt = new Date();
    await ctx.em.flush();
    ctx.runtime.keyCache.invalidateKey(key.id);
    await recordKeyActivity(ctx, 'api_key.revoked', key);
  }
  return key;
}

/**
 * Replaces a key: a new key with the same name, environment, permissions, access and expiry
 * (its secret shown once), and the old one revoked at once (no overlap, like a webhook
 * secret's rotation). An expired or revoked key cannot be rotated.
 */
export async function rotateApiKey(ctx: ServiceContext, id: string): Promise<CreatedApiKey> {
  await mayManageKeys(ctx);
  const old = await getApiKey(ctx, id);
  if (old.status === 'revoked') throw parameterInvalid('id', 'A revoked key cannot be rotated; create a new one.');
  const expiresAt = old.expiresAt && old.expiresAt.getTime() > Date.now() ? old.expiresAt : null;
  if (old.expiresAt && !expiresAt) throw parameterInvalid('id', 'An expired key cannot be rotated; create a new one.');
  const created = await mintApiKey(ctx, {
    name: old.name,
    environment: old.mode,
    permissions: [...old.permissions],
    access: old.access,
    expiresAt,
  });
  old.status = 'revoked';
  old.revokedAt = new Date();
  await ctx.em.flush();
  ctx.runtime.keyCache.invalidateKey(old.id);
  await recordKeyActivity(ctx, 'api_key.rotated', created.key, {
    replaced_key_id: old.id,
    replaced_key_prefix: old.keyPrefix,
  });
  return created;
}
