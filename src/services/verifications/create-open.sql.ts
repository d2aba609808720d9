import type { Mode } from '../../config.js';
import type { Step } from '../../entities/flow.entity.js';
import {
  CREATE_FLOW,
  createFlowParams,
  flowForCreate,
  PRESET_INSERT,
  presetInsertParams,
  wantedFlow,
  type CatalogFlow,
  type CreateFlowRow,
  type WantedFlow,
} from '../catalog/index.js';
import {
  PERSON_LOCKS,
  personLockParams,
  REPEAT_SETTINGS,
  repeatRulesOf,
  type RepeatRules,
  type RepeatSettingsRow,
} from '../repeat-control/index.js';
import {
  claimParams,
  IDEMPOTENCY_CLAIM,
  KeyTaken,
  placeFragment,
  tenantSql,
  type IdempotencyClaim,
  type RawSql,
} from '../shared/index.js';
import type { Fingerprints } from './identity.js';

/** The flow a create runs and the repeat rules its gate weighs, read together. */
export type CreateFlow = CatalogFlow & RepeatRules;

/**
 * OPEN_CREATE, the first statement of a create's transaction, one round trip composed of each domain's piece,
 * bound to the account and environment by tenantSql:
 * - idempotency (shared): claims the Idempotency-Key (`$3`-`$7`, IDEMPOTENCY_CLAIM);
 * - repeat control: takes the person's advisory locks (`$8`, PERSON_LOCKS) and reads the
 *   settings its gate needs (REPEAT_SETTINGS; a row comes back even with no flow);
 * - catalog: reads the named flow, or the default flow before the preset (`$9`-`$11`, CREATE_FLOW).
 */
const composeOpenCreate = (claimed = claimParams(null).length, locked = claimed + 1) => `
with ${IDEMPOTENCY_CLAIM}, ${placeFragment(PERSON_LOCKS, claimed)}
select f.*, s.repeat_verification, s.reverification_period_days,
       (select count(*) from claim)::int as claimed, (select locks from person_lock) as locks
from (select 1) as one
left join lateral (${placeFragment(CREATE_FLOW, locked)}) f on true
left join lateral (${REPEAT_SETTINGS}) s on true`;

// Composed on first use, not at load: the domains it draws on import this one's index in turn.
let openCreateText: string | undefined;

type OpenRow = CreateFlowRow & RepeatSettingsRow & { claimed: number };

/** What the create's first statement needs besides the flow. */
export interface OpenCreate {
  claim: Omit<IdempotencyClaim, 'answer'> | null;
  fingerprints: Fingerprints;
}

async function open(sql: RawSql, scope: { merchantId: string; mode: Mode }, wanted: WantedFlow, o: OpenCreate) {
  const params = [
    ...claimParams(o.claim),
    ...personLockParams(scope, o.fingerprints),
    ...createFlowParams(scope.merchantId, scope.mode, wanted),
  ];
  const row = (await sql.query<OpenRow>((openCreateText ??= composeOpenCreate()), params, 'idv_open_create'))[0]!;
  if (o.claim && row.claimed === 0) throw new KeyTaken();
  return row;
}

/**
 * Opens the create on its transaction's connection (see OPEN_CREATE) and resolves what the new
 * session runs (catalog's flowForCreate), creating the built-in preset on first use in this
 * transaction, with the repeat rules in force (repeat-control's repeatRulesOf).
 */
export async function openCreate(
  sql: RawSql,
  scope: { merchantId: string; mode: Mode },
  input: { flowId?: string; checks?: Step[] },
  o: OpenCreate,
): Promise<CreateFlow> {
  const wanted = wantedFlow(input);
  const bound = tenantSql({ merchantId: scope.merchantId, modes: [scope.mode] }, sql);
  // Read even for an id that cannot match: the key must be claimed (or found taken) first.
  let row = await open(bound, scope, wanted, o);
  let flow = flowForCreate(row, wanted, input.checks);
  if (!flow) {
    await bound.query(PRESET_INSERT, presetInsertParams(scope.merchantId, scope.mode));
    row = await open(bound, scope, wanted, { claim: null, fingerprints: noFingerprints });
    flow = flowForCreate(row, wanted, input.checks)!;
  }
  return { ...flow, ...repeatRulesOf(flow.ownRepeatPolicy, row) };
}

const noFingerprints: Fingerprints = { email: null, reference: null, document: null, nationalId: null };
