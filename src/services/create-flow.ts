import type { Mode } from '../config.js';
import { DEFAULT_REPEAT_POLICY, type RepeatPolicy } from '../entities/account-settings.entity.js';
import type { Step } from '../entities/flow.entity.js';
import { invalidRequest } from '../errors.js';
import { PRESET_INSERT, presetFlowId, presetInsertParams, type SnapshotSource } from './flow-resolution.js';
import type { RawSql } from './raw-sql.js';
import { repeatPolicyOf } from './repeat-control.service.js';

/** The flow a create runs and the account settings its repeat control needs, read together. */
export interface CreateFlow extends SnapshotSource {
  id: string;
  steps: Step[];
  repeatPolicy: RepeatPolicy;
  reverificationPeriodDays: number | null;
}

interface Row {
  id: string | null;
  status: string | null;
  is_default: boolean | null;
  steps: Step[] | null;
  sensitivity: number | null;
  accepted_document_types: string[] | null;
  expiry_policy: Record<string, unknown> | null;
  policy_tree: Record<string, unknown> | null;
  country_policy: Record<string, unknown> | null;
  repeat_policy: Record<string, unknown> | null;
  repeat_verification: RepeatPolicy | null;
  reverification_period_days: number | null;
}

/**
 * One statement: the named flow, or the default flow before the preset, plus the account's
 * settings (a row comes back even when no flow matched). Scoped to the account and mode.
 */
const FLOW_AND_SETTINGS = `
select f.id, f.status, f.is_default, f.steps, f.sensitivity, f.accepted_document_types, f.expiry_policy, f.policy_tree,
       f.country_policy, f.repeat_policy, s.repeat_verification, s.reverification_period_days
from (select 1) as one
left join lateral (
  select * from flows
  where merchant_id = $1 and mode = $2 and case $3::text
    when 'named' then id = $4 and deleted_at is null
    when 'preset' then id = $5
    else (is_default and deleted_at is null) or id = $5 end
  order by is_default desc limit 1
) f on true
left join account_settings s on s.merchant_id = $1`;

type Wanted = { kind: 'named'; flowId: string } | { kind: 'preset' } | { kind: 'default' };

const readFlow = async (sql: RawSql, merchantId: string, mode: Mode, wanted: Wanted) =>
  (await sql.query<Row>(FLOW_AND_SETTINGS, [merchantId, mode, wanted.kind, wanted.kind === 'named' ? wanted.flowId : null, presetFlowId(merchantId, mode)]))[0]!;

function toCreateFlow(row: Row, steps?: Step[]): CreateFlow {
  return {
    id: row.id!,
    steps: steps ?? row.steps ?? [],
    sensitivity: row.sensitivity,
    acceptedDocumentTypes: row.accepted_document_types ?? [],
    expiryPolicy: row.expiry_policy,
    policyTree: row.policy_tree,
    countryPolicy: row.country_policy,
    repeatPolicy: repeatPolicyOf(row.repeat_policy, row.repeat_verification ?? DEFAULT_REPEAT_POLICY),
    reverificationPeriodDays: row.reverification_period_days,
  };
}

/**
 * What a new session runs (spec, Create rule 1): inline `checks`, else the named `flow`, else
 * the default flow, else the built-in preset (created on first use, in this transaction).
 * Inline checks run under the preset's id. Unknown id: 400 FLOW_NOT_FOUND; archived (named
 * or default): 400 FLOW_ARCHIVED.
 */
export async function resolveCreateFlow(sql: RawSql, merchantId: string, mode: Mode, input: { flowId?: string; checks?: Step[] }): Promise<CreateFlow> {
  if (input.flowId !== undefined && input.checks !== undefined) {
    throw invalidRequest('PARAMETER_INVALID', 'Send either flow or checks, not both.', { param: 'checks' });
  }
  if (input.flowId !== undefined) {
    const row = input.flowId.startsWith('flw_') ? await readFlow(sql, merchantId, mode, { kind: 'named', flowId: input.flowId }) : null;
    if (!row?.id) throw invalidRequest('FLOW_NOT_FOUND', `No such flow: '${input.flowId}'.`, { param: 'flow' });
    if (row.status === 'archived') throw invalidRequest('FLOW_ARCHIVED', `Flow ${row.id} is archived and starts no new verification.`, { param: 'flow' });
    return toCreateFlow(row);
  }
  const wanted: Wanted = input.checks ? { kind: 'preset' } : { kind: 'default' };
  let row = await readFlow(sql, merchantId, mode, wanted);
  if (!row.id) {
    await sql.query(PRESET_INSERT, presetInsertParams(merchantId, mode));
    row = await readFlow(sql, merchantId, mode, wanted);
  }
  if (wanted.kind === 'default' && row.is_default && row.status === 'archived') throw invalidRequest('FLOW_ARCHIVED', `The default flow ${row.id} is archived.`, { param: 'flow' });
  return toCreateFlow(row, input.checks);
}
