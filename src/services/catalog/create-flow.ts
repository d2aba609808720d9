import type { Mode } from '../../config.js';
import { DEFAULT_REPEAT_POLICY, type RepeatPolicy } from '../../entities/account-settings.entity.js';
import type { Step } from '../../entities/flow.entity.js';
import { invalidRequest } from '../../errors.js';
import { PRESET_INSERT, presetFlowId, presetInsertParams, type SnapshotSource } from './flow-resolution.js';
import { KeyTaken, type RawSql } from '../shared/index.js';
import { repeatPolicyOf } from '../repeat-control/index.js';

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
  claimed: number;
}

/**
 * The first statement of a create's transaction, one round trip for four things:
 * - claims the Idempotency-Key ($6 lock key, $7-$10 row): a try-lock on the key first, so a
 *   request arriving while another holds the key learns it at once instead of queueing behind
 *   it; an expired row is taken over;
 * - takes the person's advisory locks ($11, sorted) so creates for one person queue (the
 *   matching statement that follows runs with a snapshot taken after the locks are held);
 * - reads the named flow, or the default flow before the preset ($3-$5), scoped to the
 *   account and mode;
 * - reads the account settings repeat control needs (a row comes back even with no flow).
 */
const OPEN_CREATE = `
with key_lock as (
  select pg_try_advisory_xact_lock(hashtextextended($6::text, 0)) as got where $6::text is not null
), claim as (
  insert into idempotency_keys (api_key_id, key, request_hash, status, created_at, expires_at)
  select $7, $8, $9, 'in_flight', now(), $10 from key_lock where got
  on conflict (api_key_id, key) do update set request_hash = excluded.request_hash, status = 'in_flight', response_status = null,
    response_body = null, created_at = excluded.created_at, expires_at = excluded.expires_at
  where idempotency_keys.expires_at <= now()
  returning key
), person_lock as (
  select count(pg_advisory_xact_lock(hashtextextended(k, 0))) as locks from unnest($11::text[]) as k
)
select f.id, f.status, f.is_default, f.steps, f.sensitivity, f.accepted_document_types, f.expiry_policy, f.policy_tree,
       f.country_policy, f.repeat_policy, s.repeat_verification, s.reverification_period_days,
       (select count(*) from claim)::int as claimed, (select locks from person_lock) as locks
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

/** An Idempotency-Key to claim in the create's transaction (see idempotency.service.ts). */
export interface KeyClaim {
  lockKey: string;
  apiKeyId: string;
  key: string;
  requestHash: string;
  expiresAt: Date;
}

/** What the create's first statement needs besides the flow. */
export interface OpenCreate {
  claim: KeyClaim | null;
  /** Advisory lock keys of the person, any order. */
  personLocks: string[];
}

async function readFlow(sql: RawSql, merchantId: string, mode: Mode, wanted: Wanted, open: OpenCreate): Promise<Row> {
  const c = open.claim;
  const params: unknown[] = [
    merchantId,
    mode,
    wanted.kind,
    wanted.kind === 'named' ? wanted.flowId : null,
    presetFlowId(merchantId, mode),
  ];
  params.push(
    c?.lockKey ?? null,
    c?.apiKeyId ?? null,
    c?.key ?? null,
    c?.requestHash ?? null,
    c?.expiresAt ?? null,
    [...open.personLocks].sort(),
  );
  const row = (await sql.query<Row>(OPEN_CREATE, params, 'idv_open_create'))[0]!;
  if (c && row.claimed === 0) throw new KeyTaken();
  return row;
}

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
 * Opens the create (see OPEN_CREATE) and resolves what the new session runs (spec, Create rule 1): inline `checks`, else the named `flow`, else
 * the default flow, else the built-in preset (created on first use, in this transaction).
 * Inline checks run under the preset's id. Unknown id: 400 FLOW_NOT_FOUND; archived (named
 * or default): 400 FLOW_ARCHIVED.
 */
export async function resolveCreateFlow(
  sql: RawSql,
  merchantId: string,
  mode: Mode,
  input: { flowId?: string; checks?: Step[] },
  open: OpenCreate,
): Promise<CreateFlow> {
  if (input.flowId !== undefined && input.checks !== undefined) {
    throw invalidRequest('PARAMETER_INVALID', 'Send either flow or checks, not both.', { param: 'checks' });
  }
  if (input.flowId !== undefined) {
    // Read even for an id that cannot match: the key must be claimed (or found taken) first.
    const row = await readFlow(sql, merchantId, mode, { kind: 'named', flowId: input.flowId }, open);
    if (!row.id) throw invalidRequest('FLOW_NOT_FOUND', `No such flow: '${input.flowId}'.`, { param: 'flow' });
    if (row.status === 'archived')
      throw invalidRequest('FLOW_ARCHIVED', `Flow ${row.id} is archived and starts no new verification.`, {
        param: 'flow',
      });
    return refuseEmpty(toCreateFlow(row), 'flow');
  }
  const wanted: Wanted = input.checks ? { kind: 'preset' } : { kind: 'default' };
  let row = await readFlow(sql, merchantId, mode, wanted, open);
  if (!row.id) {
    await sql.query(PRESET_INSERT, presetInsertParams(merchantId, mode));
    row = await readFlow(sql, merchantId, mode, wanted, { claim: null, personLocks: [] });
  }
  if (wanted.kind === 'default' && row.is_default && row.status === 'archived')
    throw invalidRequest('FLOW_ARCHIVED', `The default flow ${row.id} is archived.`, { param: 'flow' });
  return refuseEmpty(toCreateFlow(row, input.checks), input.checks ? 'checks' : 'flow');
}

/**
 * A flow without steps is a draft: it can be saved and edited, but it starts no verification
 * (nothing would be checked, and nothing is approved without a completed required check).
 */
function refuseEmpty(flow: CreateFlow, param: 'flow' | 'checks'): CreateFlow {
  if (flow.steps.length > 0) return flow;
  throw invalidRequest(
    'FLOW_EMPTY',
    `Flow ${flow.id} has no steps yet: add at least one step (for example {"type": "document"}) before starting verifications with it.`,
    { param },
  );
}
