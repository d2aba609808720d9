import { randomBytes } from 'node:crypto';
import type { Mode } from '../../config.js';
import { ApiKey } from '../../entities/api-key.entity.js';
import { Event } from '../../entities/event.entity.js';
import { Merchant } from '../../entities/merchant.entity.js';
import { WebhookDelivery } from '../../entities/webhook-delivery.entity.js';
import { WebhookEndpoint, type WebhookEndpointStatus } from '../../entities/webhook-endpoint.entity.js';
import { conflict, notFound, parameterInvalid } from '../../errors.js';
import { isPrefixedId, UUID_PATTERN } from '../../ids.js';
import { EVENT_TYPES, type EventType } from './events.service.js';
import { actingEnvironment, type ServiceContext, paginate, type Page, type PageParams } from '../shared/index.js';
import { checkWebhookTarget, parseWebhookUrl } from './ssrf.js';
import { buildEnvelopeBody, queueDeliveries } from './webhook-delivery.service.js';

const placeholder = (prefix: string) => `${prefix}_test${'0'.repeat(18)}`;

/** `data` of a test event: the real shape, every resource id a placeholder (vs_test000000000000000000). */
export function sampleEventData(type: EventType): Record<string, unknown> {
  const verification = {
    id: placeholder('vs'),
    status: 'approved',
    verdict: 'approve',
    decline_type: null,
    reason_codes: [],
    changeReason: 'engine',
    flow: placeholder('flw'),
    sequence: 1,
  };
  const extra: Record<string, unknown> = {};
  if (type === 'check.completed')
    extra.check = {
      id: placeholder('chk'),
      type: 'document',
      status: 'completed',
      verdict: 'approve',
      score: 0.98,
      reason_codes: [],
    };
  if (type === 'verification.tag_added' || type === 'verification.tag_removed')
    extra.tag = { id: placeholder('tag'), name: 'Example', color: 'slate' };
  if (type === 'verification.data_updated') Object.assign(extra, { changed_fields: ['first_name'], version: 2 });
  if (type === 'verification.already_verified') extra.gate = 'superseded';
  if (type.startsWith('action.'))
    extra.review = {
      id: '00000000-0000-0000-0000-000000000000',
      status: type === 'action.reviewed' ? 'resolved' : 'queued',
    };
  if (type.startsWith('fraud_network.'))
    return { fraud_network: { id: placeholder('fn'), verification: verification.id } };
  return { verification, ...extra };
}

/** `whsec_` + base64 of 32 random bytes (Standard Webhooks). */
export const generateSigningSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

export interface EndpointInput {
  url?: string;
  events?: string[];
  apiKeyIds?: string[];
  description?: string | null;
  status?: WebhookEndpointStatus;
}

/** The endpoint with its secret in clear: only create and rotate return one. */
export interface EndpointWithSecret {
  endpoint: WebhookEndpoint;
  signingSecret: string;
}

async function validatedUrl(ctx: ServiceContext, raw: string): Promise<string> {
  const url = parseWebhookUrl(raw);
  if (!(url instanceof URL)) throw parameterInvalid('url', url.reason);
  if (raw.length > 2048) throw parameterInvalid('url', 'url must be at most 2048 characters.');
  const refused = await checkWebhookTarget(url, ctx.runtime.config.webhookAllowPrivateNetworks);
  if (refused) throw parameterInvalid('url', refused);
  return url.toString();
}

function validatedEvents(events: string[], addDefault: boolean): string[] {
  const unknown = events.find((e) => !(EVENT_TYPES as readonly string[]).includes(e));
  if (unknown !== undefined) throw parameterInvalid('events', `Unknown event "${unknown}".`);
  const set = new Set(events);
  if (addDefault) set.add('verification.data_updated');
  return [...set];
}

/** Listed keys must be active keys of this account in the endpoint's environment. */
async function validatedKeyIds(ctx: ServiceContext, ids: string[], mode: Mode): Promise<string[]> {
  const unique = [...new Set(ids.map((id) => id.toLowerCase()))];
  const bad = unique.find((id) => !UUID_PATTERN.test(id));
  if (bad !== undefined) throw parameterInvalid('api_key_ids', `"${bad}" is not an API key id.`);
  if (unique.length === 0) return [];
  const keys = await ctx.em.find(ApiKey, { id: { $in: unique }, mode, status: 'active' }, { fields: ['id'] });
  const found = new Set(keys.map((k) => k.id));
  const missing = unique.find((id) => !found.has(id));
  if (missing !== undefined)
    throw parameterInvalid('api_key_ids', `No active ${mode} API key ${missing} on this account.`);
  return unique;
}

export async function listWebhookEndpoints(ctx: ServiceContext, params: PageParams): Promise<Page<WebhookEndpoint>> {
  return paginate(ctx, WebhookEndpoint, { deletedAt: null }, params);
}

export async function getWebhookEndpoint(ctx: ServiceContext, id: string): Promise<WebhookEndpoint> {
  const endpoint = isPrefixedId(id, 'whe') ? await ctx.em.findOne(WebhookEndpoint, { id, deletedAt: null }) : null;
  if (!endpoint) throw notFound('webhook_endpoint', id);
  return endpoint;
}

export async function createWebhookEndpoint(
  ctx: ServiceContext,
  input: EndpointInput & { url: string; events: string[] },
): Promise<EndpointWithSecret> {
  const mode = actingEnvironment(ctx);
  const url = await validatedUrl(ctx, input.url);
  const events = validatedEvents(input.events, true);
  const apiKeyIds = await validatedKeyIds(ctx, input.apiKeyIds ?? [], mode);
  const signingSecret = generateSigningSecret();
  const endpoint = ctx.em.create(WebhookEndpoint, {
    merchant: ctx.em.getReference(Merchant, ctx.merchantId),
    mode,
    url,
    events,
    apiKeyIds,
    description: input.description ?? null,
    secretCiphertext: ctx.runtime.vault.encrypt(signingSecret),
  });
  await ctx.em.flush();
  return { endpoint, signingSecret };
}

/** PATCH: omitted fields stay; `api_key_ids: []` clears routing; re-enabling clears the failing run. */
export async function updateWebhookEndpoint(
  ctx: ServiceContext,
  id: string,
  input: EndpointInput,
): Promise<WebhookEndpoint> {
  const endpoint = await getWebhookEndpoint(ctx, id);
  if (input.url !== undefined) endpoint.url = await validatedUrl(ctx, input.url);
  if (input.events !== undefined) endpoint.events = validatedEvents(input.events, false);
  if (input.apiKeyIds !== undefined) endpoint.apiKeyIds = await validatedKeyIds(ctx, input.apiKeyIds, endpoint.mode);
  if (input.description !== undefined) endpoint.description = input.description;
  if (input.status !== undefined && input.status !== endpoint.status) {
    endpoint.status = input.status;
    endpoint.disabledReason = null;
    if (input.status === 'active') {
      endpoint.failingSince = null;
      endpoint.consecutiveFailures = 0;
      endpoint.pausedUntil = null;
    }
  }
  await ctx.em.flush();
  return endpoint;
}

/** Soft delete: the row stays for the delivery log; pending deliveries are abandoned at their next attempt. */
export async function deleteWebhookEndpoint(ctx: ServiceContext, id: string): Promise<WebhookEndpoint> {
  const endpoint = await getWebhookEndpoint(ctx, id);
  endpoint.deletedAt = new Date();
  await ctx.em.flush();
  return endpoint;
}

/** A new secret that signs every attempt from now on; the old one stops at once (no overlap). */
export async function rotateWebhookSecret(ctx: ServiceContext, id: string): Promise<EndpointWithSecret> {
  const endpoint = await getWebhookEndpoint(ctx, id);
  const signingSecret = generateSigningSecret();
  endpoint.secretCiphertext = ctx.runtime.vault.encrypt(signingSecret);
  await ctx.em.flush();
  return { endpoint, signingSecret };
}

/**
 * Queues one sample event to this endpoint through the real delivery path. The event row is
 * written already dispatched, so fan-out never sends it to other endpoints.
 */
export async function sendTestWebhook(
  ctx: ServiceContext,
  id: string,
  eventType: string = 'verification.completed',
): Promise<WebhookDelivery> {
  if (!(EVENT_TYPES as readonly string[]).includes(eventType))
    throw parameterInvalid('event', `Unknown event "${eventType}".`);
  const endpoint = await getWebhookEndpoint(ctx, id);
  if (endpoint.status !== 'active')
    throw conflict(
      'WEBHOOK_ENDPOINT_DISABLED',
      `Webhook endpoint ${endpoint.id} is disabled; enable it before sending a test event.`,
      { param: 'id' },
    );
  const delivery = await ctx.em.transactional(async (em) => {
    const event = em.create(Event, {
      merchant: em.getReference(Merchant, ctx.merchantId),
      mode: endpoint.mode,
      type: eventType,
      apiKeyId: ctx.caller.kind === 'key' ? ctx.caller.keyId : null,
      payload: sampleEventData(eventType as EventType),
      test: true,
      dispatchedAt: new Date(),
    });
    return em.create(WebhookDelivery, {
      merchant: em.getReference(Merchant, ctx.merchantId),
      mode: endpoint.mode,
      endpointId: endpoint.id,
      eventId: event.id,
      eventType,
      test: true,
      body: buildEnvelopeBody({
        id: event.id,
        type: eventType,
        createdAt: event.createdAt,
        mode: endpoint.mode,
        test: true,
        payload: event.payload,
      }),
    });
  });
  await queueDeliveries(ctx.runtime, [delivery.id]);
  return delivery;
}

/** The delivery log of one endpoint, newest first, with every attempt. */
export async function listWebhookDeliveries(
  ctx: ServiceContext,
  endpointId: string,
  params: PageParams,
): Promise<Page<WebhookDelivery>> {
  const endpoint = await getWebhookEndpoint(ctx, endpointId);
  return paginate(ctx, WebhookDelivery, { endpointId: endpoint.id }, params);
}
