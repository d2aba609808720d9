import { z } from 'zod';
import { reviewPolicyShape, settingsPatchShape, type SettingsPatch } from '../services/access/index.js';
import { fromWireNames, renamedShape } from '../services/shared/index.js';

/** PATCH /v1/console/settings: the access domain's settings rules under the body's snake_case names. */

const NAMES = {
  repeatVerification: 'repeat_verification',
  reverificationPeriodDays: 'reverification_period_days',
  retentionDays: 'retention_days',
  reviewPolicy: 'review_policy',
};
const POLICY_NAMES = {
  claimRequired: 'claim_required',
  claimLeaseMinutes: 'claim_lease_minutes',
  presenceTtlMs: 'presence_ttl_ms',
  presenceHeartbeatMs: 'presence_heartbeat_ms',
};

export const patchSettingsBody = z.strictObject(
  renamedShape(
    { ...settingsPatchShape, reviewPolicy: z.strictObject(renamedShape(reviewPolicyShape, POLICY_NAMES)).optional() },
    NAMES,
  ),
);

/** The service's input from a validated body. */
export function toSettingsPatch(body: Record<string, unknown>): SettingsPatch {
  const patch = fromWireNames<SettingsPatch & { reviewPolicy?: Record<string, unknown> }>(body, NAMES);
  if (patch.reviewPolicy) patch.reviewPolicy = fromWireNames(patch.reviewPolicy, POLICY_NAMES);
  return patch as SettingsPatch;
}
