import type { Mode } from '../../config.js';
import type { Step } from '../../entities/flow.entity.js';
import { invalidRequest } from '../../errors.js';
import { presetFlowId, type SnapshotSource } from './flow-resolution.js';

/**
 * Catalog's rule for which flow a create runs (spec, Create rule 1): inline `checks`, else the
 * named `flow`, else the default flow, else the built-in preset. The create (owned by
 * verifications) reads it with CREATE_FLOW inside its first statement and checks the row here.
 */

/** The flow a create runs, as catalog resolves it (repeat rules are repeat-control's). */
export interface CatalogFlow extends SnapshotSource {
  id: string;
  steps: Step[];
  /** The flow's own repeat_policy, which repeat-control weighs against the account's. */
  ownRepeatPolicy: Record<string, unknown> | null;
}

export type WantedFlow = { kind: 'named'; flowId: string } | { kind: 'preset' } | { kind: 'default' };

/** What a create asks for: `flow` and `checks` together are refused. */
export function wantedFlow(input: { flowId?: string; checks?: Step[] }): WantedFlow {
  if (input.flowId !== undefined && input.checks !== undefined) {
    throw invalidRequest('PARAMETER_INVALID', 'Send either flow or checks, not both.', { param: 'checks' });
  }
  if (input.flowId !== undefined) return { kind: 'named', flowId: input.flowId };
  return input.checks ? { kind: 'preset' } : { kind: 'default' };
}

/**
 * The flow row a create reads, as a piece of a tenant-bound statement (tenantSql: `$1` account,
 * `$2` environments; `$3`-`$5` from createFlowParams): the named flow, the preset, or the default
 * flow before the preset. At most one row.
 */
export const CREATE_FLOW = `select id, status, is_default, steps, sensitivity, accepted_document_types, expiry_policy, policy_tree,
    country_policy, repeat_policy
  from flows
  where merchant_id = $1 and mode = any($2::text[]) and case $3::text
    when 'named' then id = $4 and deleted_at is null
    when 'preset' then id = $5
    else (is_default and deleted_at is null) or id = $5 end
  order by is_default desc limit 1`;

/** CREATE_FLOW's three parameters. */
export const createFlowParams = (merchantId: string, mode: Mode, wanted: WantedFlow): unknown[] => [
  wanted.kind,
  wanted.kind === 'named' ? wanted.flowId : null,
  presetFlowId(merchantId, mode),
];

/** A row of CREATE_FLOW (all null when no flow matched). */
export interface CreateFlowRow {
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
}

/**
 * The flow the create runs from its CREATE_FLOW row, or null when the preset is to be created
 * first (PRESET_INSERT, in the create's transaction) and the row read again. Inline checks run
 * under the preset's id. Unknown id: 400 FLOW_NOT_FOUND; archived (named or default): 400
 * FLOW_ARCHIVED; no steps: 400 FLOW_EMPTY.
 */
export function flowForCreate(row: CreateFlowRow, wanted: WantedFlow, checks?: Step[]): CatalogFlow | null {
  if (wanted.kind === 'named') {
    if (!row.id) throw invalidRequest('FLOW_NOT_FOUND', `No such flow: '${wanted.flowId}'.`, { param: 'flow' });
    if (row.status === 'archived')
      throw invalidRequest('FLOW_ARCHIVED', `Flow ${row.id} is archived and starts no new verification.`, {
        param: 'flow',
      });
    return refuseEmpty(catalogFlowOf(row), 'flow');
  }
  if (!row.id) return null;
  if (wanted.kind === 'default' && row.is_default && row.status === 'archived')
    throw invalidRequest('FLOW_ARCHIVED', `The default flow ${row.id} is archived.`, { param: 'flow' });
  return refuseEmpty(catalogFlowOf(row, checks), checks ? 'checks' : 'flow');
}

function catalogFlowOf(row: CreateFlowRow, steps?: Step[]): CatalogFlow {
  return {
    id: row.id!,
    steps: steps ?? row.steps ?? [],
    sensitivity: row.sensitivity,
    acceptedDocumentTypes: row.accepted_document_types ?? [],
    expiryPolicy: row.expiry_policy,
    policyTree: row.policy_tree,
    countryPolicy: row.country_policy,
    ownRepeatPolicy: row.repeat_policy,
  };
}

/**
 * A flow without steps is a draft: it can be saved and edited, but it starts no verification
 * (nothing would be checked, and nothing is approved without a completed required check).
 */
function refuseEmpty(flow: CatalogFlow, param: 'flow' | 'checks'): CatalogFlow {
  if (flow.steps.length > 0) return flow;
  throw invalidRequest(
    'FLOW_EMPTY',
    `Flow ${flow.id} has no steps yet: add at least one step (for example {"type": "document"}) before starting verifications with it.`,
    { param },
  );
}
