import { z } from 'zod';
import { listQuery } from './validate.js';

/** Request shapes of /v1/webhooks; one `/** *\/` line per field. */

export const WEBHOOK_ENDPOINT_ID_RE = /^whe_[0-9A-Za-z]+$/;
export const WEBHOOK_DELIVERY_ID_RE = /^del_[0-9A-Za-z]+$/;

export const listWebhooksQuery = listQuery(WEBHOOK_ENDPOINT_ID_RE);
export const listDeliveriesQuery = listQuery(WEBHOOK_DELIVERY_ID_RE);

const url = z.string().min(1).max(2048);
const events = z.array(z.string().max(60)).min(1).max(50);
const apiKeyIds = z.array(z.string().max(40)).max(100);
const description = z.string().max(500).nullable();

export const createWebhookBody = z.strictObject({
  /** http(s) URL without credentials; private, loopback and link-local targets are refused. */
  url,
  /** Event names of the catalogue; `verification.data_updated` is always added. */
  events,
  /** UUIDs of this environment's keys whose traffic is delivered; omitted or empty: every key. */
  api_key_ids: apiKeyIds.optional(),
  /** Free text, at most 500 characters. */
  description: description.optional(),
});

export const updateWebhookBody = z.strictObject({
  /** New target URL (same rules as on create). */
  url: url.optional(),
  /** Replaces the subscription. */
  events: events.optional(),
  /** Replaces the key routing; an empty array clears it (every key); omitted leaves it alone. */
  api_key_ids: apiKeyIds.optional(),
  /** Free text; null clears it. */
  description: description.optional(),
  /** `active` or `disabled`; a disabled endpoint receives nothing. */
  status: z.enum(['active', 'disabled']).optional(),
});

export const testWebhookBody = z.strictObject({
  /** Event name of the catalogue to simulate; default `verification.completed`. */
  event: z.string().max(60).optional(),
});

/** POST /v1/webhooks/{id}/rotate_secret takes no body fields. */
export const rotateSecretBody = z.strictObject({});
