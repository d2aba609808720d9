import type { z } from 'zod';
import { AccountSettings, type RepeatPolicy, type ReviewPolicy } from '../../entities/account-settings.entity.js';
import { Merchant } from '../../entities/merchant.entity.js';
import { conflict } from '../../errors.js';
import { ACCOUNT_ROW, rawSqlOf, tenantSql, type ServiceContext } from '../shared/index.js';
import type { settingsPatchInput } from './settings.schema.js';

/** A validated settings change (settingsPatchInput); only what is sent changes. */
export type SettingsPatch = z.output<typeof settingsPatchInput>;

/** The stored review policy's names of the change's fields. */
function storedReviewPolicy(change: NonNullable<SettingsPatch['reviewPolicy']>): Partial<ReviewPolicy> {
  const stored: Partial<ReviewPolicy> = {
    claim_required: change.claimRequired,
    claim_lease_minutes: change.claimLeaseMinutes,
    presence_ttl_ms: change.presenceTtlMs,
    presence_heartbeat_ms: change.presenceHeartbeatMs,
  };
  return Object.fromEntries(Object.entries(stored).filter(([, v]) => v !== undefined));
}

/** The account's settings, created with the defaults on first read. */
export async function getSettings(ctx: ServiceContext): Promise<AccountSettings> {
  const existing = await ctx.em.findOne(AccountSettings, { merchant: ctx.merchantId });
  if (existing) return existing;
  await tenantSql(ctx, rawSqlOf(ctx.em)).query(
    `with ${ACCOUNT_ROW}
     insert into account_settings (merchant_id, repeat_verification, review_policy, retention_days, version, updated_at)
     select a.merchant_id, $3::jsonb, $4::jsonb, 1095, 1, now() from account a on conflict do nothing`,
    [JSON.stringify(new AccountSettings().repeatVerification), JSON.stringify(new AccountSettings().reviewPolicy)],
  );
  return ctx.em.findOneOrFail(AccountSettings, { merchant: ctx.merchantId });
}

/**
 * PATCH semantics with optimistic versioning: the row is locked, the version compared, the
 * changes applied and the version incremented, or nothing at all. A repeat-control change
 * is effective for the next request (R10: immediate).
 */
export async function updateSettings(ctx: ServiceContext, patch: SettingsPatch): Promise<AccountSettings> {
  await getSettings(ctx);
  return ctx.em.transactional(async (em) => {
    const settings = await em.findOneOrFail(
      AccountSettings,
      { merchant: em.getReference(Merchant, ctx.merchantId) },
      { lockMode: 4 /* PESSIMISTIC_WRITE */, refresh: true },
    );
    if (patch.version !== undefined && patch.version !== settings.version) {
      throw conflict(
        'STALE_VERSION',
        'The settings were edited since you read them; nothing was applied. Read them again and resubmit with the new version.',
        {
          param: 'version',
          detail: { current_version: settings.version },
        },
      );
    }
    if (patch.repeatVerification)
      settings.repeatVerification = {
        ...settings.repeatVerification,
        ...(patch.repeatVerification as Partial<RepeatPolicy>),
      };
    if (patch.reverificationPeriodDays !== undefined)
      settings.reverificationPeriodDays = patch.reverificationPeriodDays;
    if (patch.retentionDays !== undefined) settings.retentionDays = patch.retentionDays;
    if (patch.reviewPolicy)
      settings.reviewPolicy = { ...settings.reviewPolicy, ...storedReviewPolicy(patch.reviewPolicy) };
    settings.version += 1;
    return settings;
  });
}
