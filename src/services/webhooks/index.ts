/** Public face of the webhooks domain: adapters import from here. */
export * from './events.service.js';
export * from './outbox-signal.js';
export * from './ssrf.js';
export * from './webhook-delivery.service.js';
export * from './webhook-dispatch.service.js';
export * from './webhook-outcomes.js';
export * from './webhook-sender.js';
export * from './webhook.service.js';
