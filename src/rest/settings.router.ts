import Router from '@koa/router';
import { z } from 'zod';
import type { AccountSettings } from '../entities/account-settings.entity.js';
import { parameterMissing } from '../errors.js';
import { getSettings, updateSettings } from '../services/settings.service.js';
import { svc } from './auth.js';
import { parseInput } from './validate.js';

const patchSettingsBody = z.strictObject({
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

export function presentSettings(s: AccountSettings) {
  return {
    object: 'account_settings',
    repeat_verification: s.repeatVerification,
    reverification_period_days: s.reverificationPeriodDays ?? null,
    retention_days: s.retentionDays,
    review_policy: s.reviewPolicy,
    version: s.version,
    updated_at: s.updatedAt.toISOString(),
  };
}

/** GET/PATCH /v1/console/settings (team member session). */
export function settingsRouter(): Router {
  const router = new Router();
  router.get('/v1/console/settings', async (ctx) => {
    ctx.body = presentSettings(await getSettings(svc(ctx)));
  });
  router.patch('/v1/console/settings', async (ctx) => {
    const body = parseInput(patchSettingsBody, ctx.request.body);
    const { version: _version, ...changes } = body;
    if (Object.keys(changes).length === 0) throw parameterMissing('repeat_verification');
    ctx.body = presentSettings(await updateSettings(svc(ctx), body));
  });
  return router;
}
