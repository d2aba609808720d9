import type { Job } from 'agenda';
import type { Runtime } from '../runtime.js';

/** One background job: its name, handler, retry behaviour and optional recurrence. */
export interface JobDefinition<Data = Record<string, unknown>> {
  name: string;
  handler: (runtime: Runtime, data: Data, job: Job<Data>) => Promise<void>;
  /** Runs on this interval in one process of the fleet (Agenda `every`, a single job). */
  every?: string;
  concurrency?: number;
  /** Shorter lock lifetime than the process default (capped by it); the heartbeat keeps it fresh. */
  lockLifetimeMs?: number;
}
