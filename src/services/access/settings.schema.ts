import { z } from 'zod';

/** The rules of a settings change, shared by PATCH /v1/console/settings and the updateSettings mutation. */

export const reviewPolicyShape = {
  /** Deciding or escalating needs a claim on the case. */
  claimRequired: z.boolean().optional(),
  /** Minutes a claim holds before it lapses. */
  claimLeaseMinutes: z.number().int().min(1).max(1440).optional(),
  /** How long a presence marker lives without a refresh. */
  presenceTtlMs: z.number().int().min(1000).max(600000).optional(),
  /** How often the console refreshes a presence marker. */
  presenceHeartbeatMs: z.number().int().min(500).max(600000).optional(),
};

export const settingsPatchShape = {
  /** "Refuse repeat verifications": on by default, scope same_flow or any. */
  repeatVerification: z
    .strictObject({ enabled: z.boolean().optional(), scope: z.enum(['same_flow', 'any']).optional() })
    .optional(),
  /** Days after which an approval no longer refuses a repeat; null: never. */
  reverificationPeriodDays: z.number().int().min(1).max(3650).nullable().optional(),
  /** Days identity, images and the email fingerprint are kept. */
  retentionDays: z.number().int().min(1).max(3650).optional(),
  reviewPolicy: z.strictObject(reviewPolicyShape).optional(),
  /** The version read; a stale one answers 409 STALE_VERSION and applies nothing. */
  version: z.number().int().min(1).optional(),
};

export const settingsPatchInput = z.strictObject(settingsPatchShape);
