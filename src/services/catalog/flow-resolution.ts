import { rawSqlOf, tenantSql, TENANT_ROW } from '../shared/index.js';
import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Mode } from '../../config.js';
import { Flow, type Step } from '../../entities/flow.entity.js';
import { Merchant } from '../../entities/merchant.entity.js';
import type { FlowSnapshot } from '../../entities/verification.entity.js';

/** Step and check types (decisions.md). */
export const CHECK_TYPES = ['document', 'liveness', 'face_match', 'age', 'aml', 'email'] as const;
export type CheckType = (typeof CHECK_TYPES)[number];

/** Document types (decisions.md); a flow may accept a subset via accepted_document_types. */
export const DOCUMENT_TYPES = ['passport', 'id_card', 'driving_licence', 'residence_permit'] as const;

export const PRESET_STEPS: Step[] = [
  { type: 'document', required: true },
  { type: 'liveness', required: true },
  { type: 'face_match', required: true },
];

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** The built-in preset's id: stable per account and environment, derived, never random. */
export function presetFlowId(merchantId: string, mode: Mode): string {
  const digest = createHash('sha256').update(`preset:${merchantId}:${mode}`).digest();
  let id = '';
  for (let i = 0; id.length < 24; i++) id += BASE62[digest[i % digest.length] % 62];
  return `flw_${id}`;
}

/** Materialises the preset row on first use (idempotent under concurrency); returns it. */
export async function ensurePresetFlow(em: EntityManager, merchantId: string, mode: Mode): Promise<Flow> {
  const id = presetFlowId(merchantId, mode);
  const filters = { tenant: { merchantId, modes: [mode] } };
  const existing = await em.findOne(Flow, { id }, { filters });
  if (existing) return existing;
  await tenantSql({ merchantId, modes: [mode] }, rawSqlOf(em)).query(
    PRESET_INSERT,
    presetInsertParams(merchantId, mode),
  );
  return em.findOneOrFail(Flow, { id }, { filters });
}

/**
 * The preset row for the tenant-bound scope's account and environment (tenantSql, `$3` its id,
 * `$4` its steps); `on conflict do nothing` makes concurrent first uses safe.
 */
export const PRESET_INSERT = `with ${TENANT_ROW}
insert into flows (id, merchant_id, mode, name, steps, is_default, is_preset, status, languages, accepted_document_types, version, created_at, updated_at)
select $3, t.merchant_id, t.mode, 'Built-in preset', $4::jsonb, false, true, 'active', '{}', '{}', 1, now(), now() from tenant t
on conflict do nothing`;

export const presetInsertParams = (merchantId: string, mode: Mode) => [
  presetFlowId(merchantId, mode),
  JSON.stringify(PRESET_STEPS),
];

/** The flow fields a session freezes (an entity or a row read by the create). */
export type SnapshotSource = Pick<
  Flow,
  'steps' | 'sensitivity' | 'acceptedDocumentTypes' | 'expiryPolicy' | 'policyTree' | 'countryPolicy'
>;

export const snapshotOf = (flow: SnapshotSource, steps: Step[] = flow.steps): FlowSnapshot => ({
  steps: steps.map((s) => ({ ...s })),
  sensitivity: flow.sensitivity ?? null,
  acceptedDocumentTypes: [...flow.acceptedDocumentTypes],
  expiryPolicy: flow.expiryPolicy ?? null,
  policyTree: flow.policyTree ?? null,
  countryPolicy: flow.countryPolicy ?? null,
});

export const merchantRef = (em: EntityManager, merchantId: string) => em.getReference(Merchant, merchantId);

/** The check a step becomes when a session starts (the defaults decisions.md gives a check item). */
export function checkOfStep(step: Step) {
  return {
    type: step.type,
    required: step.required ?? true,
    sensitivity: step.sensitivity ?? null,
    threshold: step.threshold ?? null,
    config: step.config ?? {},
  };
}
