import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Mode } from '../../config.js';
import { Flow, type Step } from '../../entities/flow.entity.js';
import { conflict, invalidRequest, notFound } from '../../errors.js';
import { ensurePresetFlow, merchantRef, presetFlowId } from './flow-resolution.js';
import {
  rawSqlOf,
  actingEnvironment,
  type ServiceContext,
  paginate,
  type Page,
  type PageParams,
} from '../shared/index.js';
import { createPreviewSession, type NewVerification } from '../verifications/index.js';

export type FlowStatus = 'active' | 'archived';
type Json = Record<string, unknown>;

/** The writable fields of a flow; undefined leaves a field alone, null clears it. */
export interface FlowFields {
  name?: string;
  steps?: Step[];
  isDefault?: boolean;
  status?: FlowStatus;
  sensitivity?: number | null;
  brandName?: string | null;
  logoUrl?: string | null;
  accentColor?: string | null;
  supportUrl?: string | null;
  privacyUrl?: string | null;
  languages?: string[];
  defaultEmailLocale?: string | null;
  countryPolicy?: Json | null;
  networkPolicy?: Json | null;
  expiryPolicy?: Json | null;
  policyTree?: Json | null;
  acceptedDocumentTypes?: string[];
  repeatPolicy?: Json | null;
}

export interface UpdateFlowInput extends FlowFields {
  /** The version the caller read; another version answers 409 STALE_VERSION. */
  version?: number;
}

export interface FlowPreview {
  verification: NewVerification;
  flow: Flow;
  clientToken: string;
  url: string;
}

const FLOW_ID = /^flw_[0-9A-Za-z]+$/;

/** Flows of the caller's environments (the built-in preset and archived ones included), newest first. */
export async function listFlows(ctx: ServiceContext, params: PageParams, environment?: Mode): Promise<Page<Flow>> {
  const modes = environment ? ctx.modes.filter((m) => m === environment) : ctx.modes;
  if (modes.length === 0) return { data: [], hasMore: false, nextCursor: null };
  for (const mode of modes) await ensurePresetFlow(ctx.em, ctx.merchantId, mode);
  return paginate(ctx, Flow, { mode: { $in: modes }, deletedAt: null }, params);
}

/** One flow; the preset's stable id materialises it on first read. Deleted and foreign flows are 404. */
export async function getFlow(
  ctx: ServiceContext,
  id: string,
  em: EntityManager = ctx.em,
  lock = false,
): Promise<Flow> {
  if (!FLOW_ID.test(id)) throw notFound('flow', id);
  const presetMode = ctx.modes.find((mode) => presetFlowId(ctx.merchantId, mode) === id);
  if (presetMode) await ensurePresetFlow(em, ctx.merchantId, presetMode);
  const flow = await em.findOne(
    Flow,
    { id, deletedAt: null },
    lock ? { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true } : {},
  );
  if (!flow) throw notFound('flow', id);
  return flow;
}

/**
 * At most one default per environment. Default changes of an account are serialised by an
 * advisory lock taken first in the transaction (before any flow row lock, so no deadlock).
 */
const lockDefaults = (em: EntityManager, merchantId: string) =>
  rawSqlOf(em).query('select pg_advisory_xact_lock(hashtext($1))', [`flow-default:${merchantId}`]);

/**
 * Clears the previous default with its own flush before the new one is marked (the partial
 * unique index flows_one_default_per_environment would refuse the reverse order).
 */
async function clearDefault(em: EntityManager, mode: Mode, keep?: string): Promise<void> {
  const previous = await em.find(Flow, {
    mode,
    isDefault: true,
    deletedAt: null,
    ...(keep ? { id: { $ne: keep } } : {}),
  });
  for (const flow of previous) {
    flow.isDefault = false;
    flow.version += 1;
  }
  if (previous.length > 0) await em.flush();
}

function applyFields(flow: Flow, fields: FlowFields): void {
  const { steps, ...rest } = fields;
  if (steps) flow.steps = steps.map((s) => ({ ...s }));
  Object.assign(flow, rest);
}

/** Creates a flow in `environment` (a key: its own); is_default moves the default mark to it. */
export async function createFlow(
  ctx: ServiceContext,
  fields: FlowFields & { name: string },
  environment?: Mode,
): Promise<Flow> {
  const mode = actingEnvironment(ctx, environment);
  // The preset exists before any flow of the environment, so it stays the oldest in lists.
  await ensurePresetFlow(ctx.em, ctx.merchantId, mode);
  return ctx.em.transactional(async (em) => {
    if (fields.isDefault) {
      await lockDefaults(em, ctx.merchantId);
      await clearDefault(em, mode);
    }
    const flow = em.create(Flow, { merchant: merchantRef(em, ctx.merchantId), mode, name: fields.name, steps: [] });
    applyFields(flow, fields);
    await em.flush();
    return flow;
  });
}

const refuseReadOnly = (flow: Flow) => {
  if (flow.isPreset)
    throw invalidRequest('FLOW_READ_ONLY', `Flow ${flow.id} is the built-in preset and cannot be changed or deleted.`, {
      param: 'id',
    });
};

/**
 * Updates a flow: steps are replaced wholesale; a `version` other than the current one
 * applies nothing and answers 409 STALE_VERSION; every applied update increments the version.
 */
export async function updateFlow(ctx: ServiceContext, id: string, input: UpdateFlowInput): Promise<Flow> {
  const { version, ...fields } = input;
  if (Object.values(fields).every((value) => value === undefined)) {
    throw invalidRequest('PARAMETER_MISSING', 'Send at least one field to update.');
  }
  return ctx.em.transactional(async (em) => {
    if (fields.isDefault) await lockDefaults(em, ctx.merchantId);
    const flow = await getFlow(ctx, id, em, true);
    refuseReadOnly(flow);
    if (version !== undefined && version !== flow.version) {
      throw conflict(
        'STALE_VERSION',
        `Flow ${flow.id} was edited since version ${version}; read it again and resubmit with version ${flow.version}.`,
        {
          param: 'version',
          detail: { current_version: flow.version },
        },
      );
    }
    if (fields.isDefault) await clearDefault(em, flow.mode, flow.id);
    applyFields(flow, fields);
    flow.version += 1;
    await em.flush();
    return flow;
  });
}

/** Soft delete: the flow disappears from reads; verifications that used it keep working. */
export async function deleteFlow(ctx: ServiceContext, id: string): Promise<Flow> {
  return ctx.em.transactional(async (em) => {
    const flow = await getFlow(ctx, id, em, true);
    refuseReadOnly(flow);
    flow.deletedAt = new Date();
    await em.flush();
    return flow;
  });
}

/**
 * A preview session of a flow of the caller's environment: always sandbox, whatever the
 * key, with the preview lifetime. Archived: 400 FLOW_ARCHIVED; no steps: 400 FLOW_EMPTY.
 */
export async function previewFlow(ctx: ServiceContext, id: string): Promise<FlowPreview> {
  const flow = await getFlow(ctx, id);
  if (flow.status === 'archived')
    throw invalidRequest('FLOW_ARCHIVED', `Flow ${flow.id} is archived and starts no new verification.`, {
      param: 'id',
    });
  if (flow.steps.length === 0)
    throw invalidRequest('FLOW_EMPTY', `Flow ${flow.id} has no steps to preview.`, { param: 'id' });
  const { verification, clientToken } = await createPreviewSession(ctx, flow);
  return {
    verification,
    flow,
    clientToken,
    url: `${ctx.runtime.config.publicUrl}/verify/${verification.id}#token=${clientToken}`,
  };
}
