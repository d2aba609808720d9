import { z } from 'zod';

/** PATCH /v1/console/settings and the updateSettings mutation: only what is sent changes. */
export const patchSettingsBody = z.strictObject({
  /** "Refuse repeat verifications": on by default, scope same_flow or any. */
  repeat_verification: z.strictObject({ enabled: z.boolean().optional(), scope: z.enum(['same_flow', 'any']).optional() }).optional(),
  /** Days after which an approval no longer refuses a repeat; null: never. */
  reverification_period_days: z.number().int().min(1).max(3650).nullable().optional(),
  /** Days identity, images and the email fingerprint are kept. */
  retention_days: z.number().int().min(1).max(3650).optional(),
  review_policy: z
    .strictObject({
      claim_required: z.boolean().optional(),
      claim_lease_minutes: z.number().int().min(1).max(1440).optional(),
      presence_ttl_ms: z.number().int().min(1000).max(600000).optional(),
      presence_heartbeat_ms: z.number().int().min(500).max(600000).optional(),
    })
    .optional(),
  /** The version read; a stale one answers 409 STALE_VERSION and applies nothing. */
  version: z.number().int().min(1).optional(),
});
