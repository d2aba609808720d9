import type { Runtime } from '../runtime.js';
import { DELIVER_WEBHOOK_JOB, deliverWebhook } from '../services/webhooks/index.js';
import type { JobDefinition } from './job.js';

import type { DeliverJobData } from '../services/webhooks/index.js';

/**
 * One attempt of one webhook delivery. Receiver failures are expected outcomes recorded on
 * the delivery, not job errors; the retry is scheduled by the service, not by Agenda. Its own
 * slots (see Jobs.register): deliveries never hold the slots check runs need.
 */
export const deliverWebhookJob: JobDefinition<DeliverJobData> = {
  name: DELIVER_WEBHOOK_JOB,
  concurrency: 10,
  // A backlog (an endpoint down for hours) is worked a few dozen at a time, never locked in bulk.
  lockLimit: 40,
  priority: 'low',
  handler: async (runtime: Runtime, data) => {
    await deliverWebhook(runtime, data.deliveryId);
  },
};
