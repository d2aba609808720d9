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
] as const;
export type MemberPermission = (typeof MEMBER_PERMISSIONS)[number];

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
      throw permissionError('INSUFFICIENT_PERMISSIONS', await missingScopeMessage(ctx, permission));
    }
    return;
  }
  const permission = requirement.permission;
  if (permission && !caller.permissions.includes(permission)) {
    throw permissionError('INSUFFICIENT_PERMISSIONS', `This team member lacks the permission "${permission}".`);
  }
}

/** Names the account's active keys that already hold the missing scope (spec, Authentication 6). */
async function missingScopeMessage(ctx: ServiceContext, permission: string): Promise<string> {
  const holders = await ctx.em.find(
    ApiKey,
    { permissions: { $contains: [permission] }, status: 'active', $or: [{ expiresAt: null }, { expiresAt: { $gt: new Date() } }] },
    {
      filters: { tenant: { merchantId: ctx.merchantId, modes: ['sandbox', 'live'] } },
      orderBy: { createdAt: 'desc' },
      limit: 10,
    },
  );
  const base = `This API key lacks the permission "${permission}".`;
  if (holders.length === 0) return `${base} No active key of this account holds it; create one with POST /v1/api-keys.`;
  const names = holders.map((k) => `"${k.name}" (${k.mode}, ${k.keyPrefix}...)`).join(', ');
  return `${base} Active keys of this account that hold it: ${names}.`;
}

export const isKeyPermission = (value: string): value is KeyPermission => (KEY_PERMISSIONS as readonly string[]).includes(value);
export const isMemberPermission = (value: string): value is MemberPermission =>
  (MEMBER_PERMISSIONS as readonly string[]).includes(value);
