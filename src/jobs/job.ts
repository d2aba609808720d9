import type { Job } from 'agenda';
import type { Runtime } from '../runtime.js';

/** One background job: its name, handler, retry behaviour and optional recurrence. */
export interface JobDefinition<Data = Record<string, unknown>> {
  name: string;
  handler: (runtime: Runtime, data: Data, job: Job<Data>) => Promise<void>;
  /** Runs on this interval in one process of the fleet (Agenda `every`, a single job). */
  every?: string;
  /** Runs of this job at once in one process (default 5); each kind has its own slots (see Jobs.register). */
  concurrency?: number;
  /**
   * Most jobs of this kind one process holds locked (running or waiting to run; default: no
   * limit), so a large backlog of one kind is not locked, held and re-locked in bulk.
   */
  lockLimit?: number;
  /** Order among jobs due at the same moment. */
  priority?: 'lowest' | 'low' | 'normal' | 'high' | 'highest';
  /** Shorter lock lifetime than the process default (capped by it); the heartbeat keeps it fresh. */
  lockLifetimeMs?: number;
}
