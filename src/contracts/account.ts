import { z } from 'zod';
import { access, mode, nullableTimestamp, timestamp, type Out } from './common.js';

/** The account, its keys, its team and its settings as `/v1` answers them. */

export const merchant = z
  .object({
    id: z.string(),
    object: z.literal('merchant'),
    name: z.string(),
    slug: z.string(),
    status: z.string(),
    tier: z.string(),
    created_at: nullableTimestamp,
  })
  .meta({ id: 'Merchant' });

export const entitlements = z
  .object({
    object: z.literal('entitlements'),
    mode,
    tier: z.string(),
    environment: mode,
    access,
    permissions: z.array(z.string()),
  })
  .meta({ id: 'Entitlements' });

export const apiKey = z
  .object({
    id: z.string(),
    object: z.literal('api_key'),
    name: z.string(),
    environment: mode,
    status: z.string(),
    key_prefix: z.string(),
    permissions: z.array(z.string()),
    access,
    created_at: nullableTimestamp,
    last_used_at: nullableTimestamp,
    expires_at: nullableTimestamp,
    revoked_at: nullableTimestamp,
    secret_key: z.string().optional().meta({ description: 'Only in the create answer, once.' }),
  })
  .meta({ id: 'ApiKey' });

export const consoleSession = z
  .object({ object: z.literal('console_session'), token: z.string(), expires_at: timestamp })
  .meta({ id: 'ConsoleSession' });

export const consoleSessionDeleted = z
  .object({ object: z.literal('console_session'), deleted: z.literal(true) })
  .meta({ id: 'ConsoleSessionDeleted' });

export const member = z
  .object({
    id: z.string(),
    object: z.literal('member'),
    email: z.string(),
    name: z.string(),
    permissions: z.array(z.string()),
    environments: z.array(mode),
    status: z.enum(['active', 'deactivated']),
    created_at: z.string(),
    deactivated_at: nullableTimestamp,
  })
  .meta({ id: 'Member' });

export const invitedMember = z
  .object({ member, password: z.string().meta({ description: 'The first password, shown once.' }) })
  .meta({ id: 'InvitedMember' });

export const accountSettings = z
  .object({
    object: z.literal('account_settings'),
    repeat_verification: z.record(z.string(), z.unknown()),
    reverification_period_days: z.number().int().nullable(),
    retention_days: z.unknown(),
    review_policy: z.unknown(),
    version: z.number().int(),
    updated_at: timestamp,
  })
  .meta({ id: 'AccountSettings' });

export type MerchantOut = Out<typeof merchant>;
export type EntitlementsOut = Out<typeof entitlements>;
export type ApiKeyOut = Out<typeof apiKey>;
export type ConsoleSessionOut = Out<typeof consoleSession>;
export type ConsoleSessionDeletedOut = Out<typeof consoleSessionDeleted>;
export type MemberOut = Out<typeof member>;
export type InvitedMemberOut = Out<typeof invitedMember>;
export type AccountSettingsOut = Out<typeof accountSettings>;
