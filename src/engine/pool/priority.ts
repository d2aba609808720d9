import { readlinkSync } from 'node:fs';
import os from 'node:os';

/** This thread's kernel id (Linux: /proc/thread-self names it). */
export const threadId = (): number => Number(readlinkSync('/proc/thread-self').split('/').pop());

/**
 * Analyses yield the CPU to the event loop that answers HTTP: a pool thread (and the threads
 * it starts, such as the OCR worker) runs ENGINE_NICE (default 10) steps nicer. Linux keeps a
 * priority per thread; elsewhere, or when not permitted, nothing changes.
 */
export function lowerThreadPriority(): void {
  const steps = Number(process.env.ENGINE_NICE ?? 10);
  if (!Number.isInteger(steps) || steps <= 0) return;
  try {
    const tid = threadId();
    os.setPriority(tid, Math.min(19, os.getPriority(tid) + steps));
  } catch {
    // No /proc (not Linux) or not permitted: analyses run at the process's priority.
  }
}

/** The calling thread's niceness (the pool's `pool.priority` task; null where unknown). */
export function threadPriority(): number | null {
  try {
    return os.getPriority(threadId());
  } catch {
    return null;
  }
}
