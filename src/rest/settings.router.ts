import Router from '@koa/router';
import type { AccountSettings } from '../entities/account-settings.entity.js';
import { parameterMissing } from '../errors.js';
import { getSettings, updateSettings } from '../services/access/index.js';
import { requirePermission, svc } from '../http/auth.js';
import { patchSettingsBody, toSettingsPatch } from './settings.schema.js';
import type { AccountSettingsOut } from '../contracts/index.js';
import { parseInput } from './validate.js';

export function presentSettings(s: AccountSettings): AccountSettingsOut {
  return {
    object: 'account_settings',
    repeat_verification: { ...s.repeatVerification },
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
  router.patch('/v1/console/settings', requirePermission('settings.manage'), async (ctx) => {
    const body = parseInput(patchSettingsBody, ctx.request.body);
    const { version: _version, ...changes } = body;
    if (Object.keys(changes).length === 0) throw parameterMissing('repeat_verification');
    ctx.body = presentSettings(await updateSettings(svc(ctx), toSettingsPatch(body)));
  });
  return router;
}
