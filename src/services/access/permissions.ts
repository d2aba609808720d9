import type { Mode } from '../../config.js';
import { ApiKey } from '../../entities/api-key.entity.js';
import { permissionError } from '../../errors.js';
import type { ServiceContext } from '../shared/index.js';

/** Scopes a secret key can hold (spec, Authentication 5). */
export const KEY_PERMISSIONS = [
  'verification:create',
  'verification:read',
  'verification:reopen',
  'applicant:read',
  'settings:read',
  'settings:write',
  'webhook:manage',
  'analytics:read',
] as const;
export type KeyPermission = (typeof KEY_PERMISSIONS)[number];

/** Team-member permissions (spec, Authentication 9). */
export const MEMBER_PERMISSIONS = [
  'verifications.reveal',
  'persons.read',
  'logs.read',
  'verifications.export',
  'usage.export',
  'reviews.assign',
  'reviews.resolve_escalation',
  // Not named by the spec (README, Decisions): changing account settings and minting keys that may.
  'settings.manage',
  // decisions.md (keys from a seat): creating, revoking and rotating API keys from the console or GraphQL.
  'keys.manage',
] as const;
export type MemberPermission = (typeof MEMBER_PERMISSIONS)[number];

/**
 * The member permission a seat needs to mint a key holding each scope: a member never gains
 * through a key what its seat lacks. Scopes not listed need only a session.
 */
export const MEMBER_PERMISSION_FOR_KEY_SCOPE: Partial<Record<KeyPermission, MemberPermission>> = {
  'applicant:read': 'verifications.reveal',
  'verification:reopen': 'reviews.resolve_escalation',
  'settings:write': 'settings.manage',
  'webhook:manage': 'settings.manage',
};

/** decisions.md: applicant:read, analytics:read and verification:reopen are granted per key only. */
export const DEFAULT_KEY_PERMISSIONS: Record<Mode, KeyPermission[]> = {
  sandbox: ['verification:create', 'verification:read', 'settings:read', 'settings:write', 'webhook:manage'],
  live: ['verification:create', 'verification:read', 'settings:read'],
};

export interface Requirement {
  /** The scope (key) or permission (member) needed; undefined: any authenticated caller. */
  permission?: KeyPermission | MemberPermission;
  /** Whether the operation writes; read-only keys are refused on every write. */
  write?: boolean;
}

/**
 * The one authorization check, used by the Koa `requirePermission()` and by the
 * type-graphql authChecker. Read-only outranks every scope.
 */
export async function authorize(ctx: ServiceContext, requirement: Requirement): Promise<void> {
  const { caller } = ctx;
  if (caller.kind === 'system') return;
  if (caller.kind === 'key') {
    if (requirement.write && caller.access === 'read_only') {
      throw permissionError('READ_ONLY_KEY', 'This API key is read-only and cannot call a writing endpoint.');
    }
    const permission = requirement.permission;
    if (permission && !caller.permissions.includes(permission)) {
      throw permissionError(
        'INSUFFICIENT_PERMISSIONS',
        await missingScopeMessage(ctx, caller.mode, permission, requirement.write ?? false),
      );
    }
    return;
  }
  const permission = requirement.permission;
  if (permission && !caller.permissions.includes(permission)) {
    throw permissionError('INSUFFICIENT_PERMISSIONS', `This team member lacks the permission "${permission}".`);
  }
}

/**
 * Names the account's active keys that could make this call (spec, Authentication 6): of the
 * caller's environment, holding the scope, and read-write when the call writes.
 */
async function missingScopeMessage(
  ctx: ServiceContext,
  mode: Mode,
  permission: string,
  write: boolean,
): Promise<string> {
  const holders = await ctx.em.find(
    ApiKey,
    {
      permissions: { $contains: [permission] },
      status: 'active',
      ...(write ? { access: 'read_write' as const } : {}),
      $or: [{ expiresAt: null }, { expiresAt: { $gt: new Date() } }],
    },
    {
      filters: { tenant: { merchantId: ctx.merchantId, modes: [mode] } },
      orderBy: { createdAt: 'desc' },
      limit: 10,
    },
  );
  const base = `This API key lacks the permission "${permission}".`;
  if (holders.length === 0)
    return `${base} No active ${mode} key of this account can make this call; create one with POST /v1/api-keys.`;
  const names = holders.map((k) => `"${k.name}" (${k.keyPrefix}...)`).join(', ');
  return `${base} Active ${mode} keys of this account that can make this call: ${names}.`;
}

export const isKeyPermission = (value: string): value is KeyPermission =>
  (KEY_PERMISSIONS as readonly string[]).includes(value);
export const isMemberPermission = (value: string): value is MemberPermission =>
  (MEMBER_PERMISSIONS as readonly string[]).includes(value);
