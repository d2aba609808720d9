/** One step of a document analysis and its wall time (the eval's profile and debugging). */
export interface TraceEvent {
  step: string;
  ms: number;
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
  const value = await task();
  trace({ step, ms: performance.now() - started, detail: detail?.(value), image });
  return value;
}
