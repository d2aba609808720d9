import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Mode } from '../config.js';
import { Flow, type Step } from '../entities/flow.entity.js';
import { Merchant } from '../entities/merchant.entity.js';
import { invalidRequest } from '../errors.js';
import type { FlowSnapshot } from '../entities/verification.entity.js';
import type { ServiceContext } from './context.js';

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
  await em.getConnection().execute(
    `insert into flows (id, merchant_id, mode, name, steps, is_default, is_preset, status, languages, accepted_document_types, version, created_at, updated_at)
     values (?, ?, ?, 'Built-in preset', ?::jsonb, false, true, 'active', '{}', '{}', 1, now(), now()) on conflict do nothing`,
    [id, merchantId, mode, JSON.stringify(PRESET_STEPS)],
  );
  return em.findOneOrFail(Flow, { id }, { filters });
}

export const snapshotOf = (flow: Flow, steps: Step[] = flow.steps): FlowSnapshot => ({
  steps: steps.map((s) => ({ ...s })),
  sensitivity: flow.sensitivity ?? null,
  acceptedDocumentTypes: [...flow.acceptedDocumentTypes],
  expiryPolicy: flow.expiryPolicy ?? null,
  policyTree: flow.policyTree ?? null,
  countryPolicy: flow.countryPolicy ?? null,
});

export interface ResolvedFlow {
  flow: Flow;
  steps: Step[];
}

/**
 * What a new session runs (spec, Create rule 1): inline `checks`, else the named `flow`, else
 * the default flow, else the built-in preset. Inline checks run under the preset's id.
 * Unknown id: 400 FLOW_NOT_FOUND; archived (named or default): 400 FLOW_ARCHIVED.
 */
export async function resolveFlowForSession(ctx: ServiceContext, mode: Mode, input: { flowId?: string; checks?: Step[] }): Promise<ResolvedFlow> {
  if (input.flowId !== undefined && input.checks !== undefined) {
    throw invalidRequest('PARAMETER_INVALID', 'Send either flow or checks, not both.', { param: 'checks' });
  }
  if (input.checks) {
    const preset = await ensurePresetFlow(ctx.em, ctx.merchantId, mode);
    return { flow: preset, steps: input.checks };
  }
  if (input.flowId !== undefined) {
    const named = input.flowId.startsWith('flw_') ? await ctx.em.findOne(Flow, { id: input.flowId, mode, deletedAt: null }) : null;
    if (!named) throw invalidRequest('FLOW_NOT_FOUND', `No such flow: '${input.flowId}'.`, { param: 'flow' });
    if (named.status === 'archived') throw invalidRequest('FLOW_ARCHIVED', `Flow ${named.id} is archived and starts no new verification.`, { param: 'flow' });
    return { flow: named, steps: named.steps };
  }
  const byDefault = await ctx.em.findOne(Flow, { mode, isDefault: true, deletedAt: null });
  if (byDefault) {
    if (byDefault.status === 'archived') throw invalidRequest('FLOW_ARCHIVED', `The default flow ${byDefault.id} is archived.`, { param: 'flow' });
    return { flow: byDefault, steps: byDefault.steps };
  }
  const preset = await ensurePresetFlow(ctx.em, ctx.merchantId, mode);
  return { flow: preset, steps: preset.steps };
}

export const merchantRef = (em: EntityManager, merchantId: string) => em.getReference(Merchant, merchantId);
