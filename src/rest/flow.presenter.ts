import type { Flow, Step } from '../entities/flow.entity.js';
import { checkOfStep, type FlowPreview } from '../services/catalog/index.js';
import type { FlowDeletedOut, FlowOut, FlowPreviewOut } from '../contracts/index.js';
import { iso } from './presenters.js';

/** The `/v1` JSON of flows, kept apart from the GraphQL types. */

/** A step as stored, with its defaults filled in (the same defaults a session's checks get). */
export const presentStep = (step: Step) => checkOfStep(step);

export function presentFlow(flow: Flow): FlowOut {
  return {
    id: flow.id,
    object: 'flow',
    name: flow.name,
    steps: flow.steps.map(presentStep),
    is_default: flow.isDefault,
    status: flow.status,
    sensitivity: flow.sensitivity ?? null,
    brand_name: flow.brandName ?? null,
    logo_url: flow.logoUrl ?? null,
    accent_color: flow.accentColor ?? null,
    support_url: flow.supportUrl ?? null,
    privacy_url: flow.privacyUrl ?? null,
    languages: flow.languages,
    default_email_locale: flow.defaultEmailLocale ?? null,
    country_policy: flow.countryPolicy ?? null,
    network_policy: flow.networkPolicy ?? null,
    expiry_policy: flow.expiryPolicy ?? null,
    policy_tree: flow.policyTree ?? null,
    accepted_document_types: flow.acceptedDocumentTypes,
    repeat_policy: flow.repeatPolicy ?? null,
    version: flow.version,
    created_at: iso(flow.createdAt),
    updated_at: iso(flow.updatedAt),
  };
}

export const presentDeletedFlow = (flow: Flow): FlowDeletedOut => ({ id: flow.id, object: 'flow', deleted: true });

export function presentFlowPreview(preview: FlowPreview): FlowPreviewOut {
  return {
    object: 'flow_preview',
    id: preview.verification.id,
    flow: preview.flow.id,
    mode: preview.verification.mode,
    url: preview.url,
    client_token: preview.clientToken,
    expires_at: iso(preview.verification.expiresAt),
  };
}
