import { z } from 'zod';
import { deliveryAttempt, mode, nullableTimestamp, timestamp, type Out } from './common.js';

/** Webhook endpoints and their deliveries (the console's delivery log is in logs.ts). */

export const webhookEndpoint = z
  .object({
    id: z.string(),
    object: z.literal('webhook_endpoint'),
    url: z.string(),
    events: z.array(z.string()),
    status: z.string(),
    api_key_ids: z.array(z.string()),
    description: z.string().nullable(),
    environment: mode,
    created_at: timestamp,
    signing_secret: z.string().optional().meta({ description: 'Only when created and when rotated, once.' }),
  })
  .meta({ id: 'WebhookEndpoint' });

export const webhookEndpointDeleted = z
  .object({ id: z.string(), object: z.literal('webhook_endpoint'), deleted: z.literal(true) })
  .meta({ id: 'WebhookEndpointDeleted' });

export const webhookDelivery = z
  .object({
    id: z.string(),
    object: z.literal('webhook_delivery'),
    endpoint_id: z.string(),
    event: z.string().meta({ description: 'The event name.' }),
    event_id: z.string().meta({ description: 'What receivers see as `webhook-id`: their idempotency key.' }),
    test: z.boolean(),
    status: z.string(),
    created_at: timestamp,
    attempt_count: z.number().int().optional().meta({ description: 'The delivery log (GET .../deliveries) only.' }),
    next_attempt_at: nullableTimestamp.optional().meta({ description: 'The delivery log only.' }),
    attempts: z.array(deliveryAttempt).optional().meta({ description: 'The delivery log only.' }),
  })
  .meta({ id: 'WebhookDelivery' });

export type WebhookEndpointOut = Out<typeof webhookEndpoint>;
export type WebhookEndpointDeletedOut = Out<typeof webhookEndpointDeleted>;
export type WebhookDeliveryOut = Out<typeof webhookDelivery>;
