import type { Runtime } from '../runtime.js';
import { dispatchEvents, DISPATCH_EVENTS_JOB } from '../services/webhook-delivery.service.js';
import type { JobDefinition } from './job.js';

/** How long one run keeps polling the outbox; just under the interval so runs do not overlap. */
const WINDOW_MS = 1_800;

/**
 * Fans committed outbox events out to webhook deliveries and re-queues deliveries whose
 * sender died. One process of the fleet runs it at a time (Agenda `every`); a run polls for
 * ~2 s so an event waits a fraction of a second, not a whole interval.
 */
export const dispatchEventsJob: JobDefinition = {
  name: DISPATCH_EVENTS_JOB,
  every: '2 seconds',
  concurrency: 1,
  // Short, so a crashed holder hands the fan-out to another process within seconds.
  lockLifetimeMs: 10_000,
  handler: async (runtime: Runtime) => {
    await dispatchEvents(runtime, WINDOW_MS);
  },
};
