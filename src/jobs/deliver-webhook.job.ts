import type { Runtime } from '../runtime.js';
import { DELIVER_WEBHOOK_JOB, deliverWebhook } from '../services/webhooks/index.js';
import type { JobDefinition } from './job.js';

export interface DeliverWebhookData {
  deliveryId: string;
}

/**
 * One attempt of one webhook delivery. Receiver failures are expected outcomes recorded on
 * the delivery, not job errors; the retry is scheduled by the service, not by Agenda.
 */
export const deliverWebhookJob: JobDefinition<DeliverWebhookData> = {
  name: DELIVER_WEBHOOK_JOB,
  concurrency: 20,
  handler: async (runtime: Runtime, data) => {
    await deliverWebhook(runtime, data.deliveryId);
  },
};
