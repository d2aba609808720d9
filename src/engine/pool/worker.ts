import { lowerThreadPriority } from './priority.js';
import { TASKS, type TaskName } from './tasks.js';

lowerThreadPriority();

/** The piscina worker: runs one named analysis. Unknown names fail the task, not the thread. */
export default async function runTask({ task, payload }: { task: string; payload: unknown }): Promise<unknown> {
  const fn = (TASKS as Record<string, (p: unknown) => Promise<unknown>>)[task as TaskName];
  if (!fn) throw new Error(`unknown engine task ${task}`);
  return fn(payload);
}
