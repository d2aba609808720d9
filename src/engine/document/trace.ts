/** One step of a document analysis and its wall time (the eval's profile and debugging). */
export interface TraceEvent {
  step: string;
  ms: number;
  /** CPU time of the whole process meanwhile (OCR runs in a worker thread of it), in ms: steady under the machine's load, unlike `ms`. */
  cpuMs?: number;
  detail?: string;
  /** The image an OCR step was given (debugging: what the reader saw). */
  image?: Buffer;
}

export type Trace = (event: TraceEvent) => void;

/** Runs `task`, reporting its wall time to `trace` (if any) with a detail drawn from its result. */
export async function timed<T>(
  trace: Trace | undefined,
  step: string,
  task: () => Promise<T>,
  detail?: (value: T) => string | undefined,
  image?: Buffer,
): Promise<T> {
  if (!trace) return task();
  const started = performance.now();
  const cpu = process.cpuUsage();
  const value = await task();
  const used = process.cpuUsage(cpu);
  trace({
    step,
    ms: performance.now() - started,
    cpuMs: (used.user + used.system) / 1000,
    detail: detail?.(value),
    image,
  });
  return value;
}
