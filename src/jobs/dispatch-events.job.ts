import type { Runtime } from '../runtime.js';
import { DISPATCH_EVENTS_JOB, dispatchEvents } from '../services/webhooks/index.js';
import type { JobDefinition } from './job.js';

/**
 * How long one run keeps watching the outbox (woken by LISTEN/NOTIFY). Long, so one holder
 * watches without gaps; its heartbeat keeps the lock, and a run ends at once when its process
 * is stopping.
 */
const WINDOW_MS = 60_000;

/**
 * Fans committed outbox events out to webhook deliveries, sends their first attempts from
 * this process (see DeliverySender), and re-queues deliveries whose sender died. One process
 * of the fleet runs it at a time (Agenda `every`, concurrency 1); a run lasts a minute and is
 * woken by each events commit, so an event waits moments, never an interval.
 */
export const dispatchEventsJob: JobDefinition = {
  name: DISPATCH_EVENTS_JOB,
  every: '2 seconds',
  concurrency: 1,
  // Short, so a crashed holder hands the fan-out to another process within seconds.
  lockLifetimeMs: 10_000,
  handler: async (runtime: Runtime) => {
    await dispatchEvents(runtime, WINDOW_MS, () => runtime.jobs.isStopping);
  },
};
