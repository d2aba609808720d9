import type { WebhookDelivery } from '../entities/webhook-delivery.entity.js';
import type { WebhookEndpoint } from '../entities/webhook-endpoint.entity.js';
import type { WebhookDeliveryOut, WebhookEndpointDeletedOut, WebhookEndpointOut } from '../contracts/index.js';

/** The `/v1` JSON of webhook endpoints and deliveries; the secret appears only when given (create, rotate). */
export function presentWebhookEndpoint(endpoint: WebhookEndpoint, signingSecret?: string): WebhookEndpointOut {
  return {
    id: endpoint.id,
    object: 'webhook_endpoint',
    url: endpoint.url,
    events: endpoint.events,
    status: endpoint.status,
    api_key_ids: endpoint.apiKeyIds,
    description: endpoint.description ?? null,
    environment: endpoint.mode,
    created_at: endpoint.createdAt.toISOString(),
    ...(signingSecret ? { signing_secret: signingSecret } : {}),
  };
}

export const presentWebhookEndpointDeletion = (id: string): WebhookEndpointDeletedOut => ({
  id,
  object: 'webhook_endpoint',
  deleted: true,
});

/** `event` is the event name; `event_id` the id receivers see as `webhook-id` (an idempotency key). */
export function presentWebhookDelivery(
  delivery: WebhookDelivery,
  options: { attempts?: boolean } = {},
): WebhookDeliveryOut {
  return {
    id: delivery.id,
    object: 'webhook_delivery',
    endpoint_id: delivery.endpointId,
    event: delivery.eventType,
    event_id: delivery.eventId,
    test: delivery.test,
    status: delivery.status,
    created_at: delivery.createdAt.toISOString(),
    ...(options.attempts
      ? {
          attempt_count: delivery.attemptCount,
          next_attempt_at: delivery.status === 'pending' ? delivery.nextAttemptAt.toISOString() : null,
          attempts: delivery.attempts,
        }
      : {}),
  };
}
