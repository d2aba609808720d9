import os from 'node:os';
import { Piscina } from 'piscina';
import type { Logger } from '../../logger.js';
import type { TaskName, TaskPayload, TaskResult } from './tasks.js';

export interface EnginePoolOptions {
  /** Worker threads (ENGINE_CONCURRENCY). */
  concurrency: number;
  /** An analysis running longer is aborted and its thread replaced (ENGINE_TIMEOUT_MS). */
  timeoutMs: number;
  logger?: Logger;
  /** Another worker module (tests of crash handling). */
  filename?: URL;
}

const V8_HEAP_FLAG = /^--(max|min)-(old|semi|young)-(generation-)?(space-)?size|^--max-heap-size|^--stack-size/;

/**
 * Default pool size: one thread per core. The threads run niced (priority.ts), so the HTTP
 * server and the database still come first when they need a core; leaving a core idle for
 * them instead halved the sessions a minute (docs/benchmarks.md).
 */
export const defaultConcurrency = (): number => Math.max(1, os.availableParallelism?.() ?? os.cpus().length);

/** Why an analysis did not produce a result: the check errors with CHECK_UNAVAILABLE. */
export class EngineTaskError extends Error {
  constructor(
    readonly task: string,
    readonly reason: 'timeout' | 'crash' | 'closed',
    cause?: unknown,
  ) {
    super(`engine task ${task} failed (${reason})`, { cause });
  }
}

/**
 * Runs analyses off the event loop in a piscina worker-thread pool. Threads start on the
 * first task (a server that never analyses never loads a model). From the TypeScript sources
 * (tests) the worker runs through tsx; from the build it is plain JavaScript.
 */
export class EnginePool {
  private pool: Piscina | null = null;
  private closed = false;
  /** Analyses in flight (queued or running) from this process. */
  running = 0;

  constructor(private readonly options: EnginePoolOptions) {}

  /**
   * A worker refuses V8 options in an explicit execArgv (`npm start` runs node with
   * --max-semi-space-size), so JavaScript workers inherit the process's flags implicitly; a
   * TypeScript worker (tests) gets the process's flags minus V8 heap options, plus tsx.
   */
  private workerFile(): { filename: string; execArgv: string[] | undefined } {
    const fromSource = import.meta.url.endsWith('.ts');
    const url = this.options.filename ?? new URL(fromSource ? './worker.ts' : './worker.js', import.meta.url);
    if (!url.pathname.endsWith('.ts')) return { filename: url.href, execArgv: undefined };
    return {
      filename: url.href,
      execArgv: [...process.execArgv.filter((flag) => !V8_HEAP_FLAG.test(flag)), '--import', 'tsx'],
    };
  }

  private piscina(): Piscina {
    if (!this.pool) {
      const { filename, execArgv } = this.workerFile();
      const threads = Math.max(1, this.options.concurrency);
      // Idle threads are kept: a new thread pays the model load again. A thread whose JavaScript
      // heap outgrows ENGINE_MAX_HEAP_MB is ended (its task fails as a crash) instead of the process.
      const maxOldGenerationSizeMb = Number(process.env.ENGINE_MAX_HEAP_MB ?? 1536);
      this.pool = new Piscina({
        filename,
        execArgv,
        minThreads: threads,
        maxThreads: threads,
        idleTimeout: 24 * 3600_000,
        resourceLimits: { maxOldGenerationSizeMb },
      });
    }
    return this.pool;
  }

  /** Runs a named analysis; rejects with EngineTaskError on timeout, a crashed thread or a thrown error. */
  async run<N extends TaskName>(task: N, payload: TaskPayload<N>): Promise<TaskResult<N>> {
    if (this.closed) throw new EngineTaskError(task, 'closed');
    const signal = AbortSignal.timeout(this.options.timeoutMs);
    this.running += 1;
    try {
      return (await this.piscina().run({ task, payload }, { signal })) as TaskResult<N>;
    } catch (error) {
      if (this.closed) throw new EngineTaskError(task, 'closed', error);
      const timedOut = signal.aborted;
      this.options.logger?.warn(
        { err: error, task },
        timedOut ? `engine task ${task} timed out` : `engine task ${task} failed`,
      );
      throw new EngineTaskError(task, timedOut ? 'timeout' : 'crash', error);
    } finally {
      this.running -= 1;
    }
  }

  /** Threads currently running or queued tasks (bench and health). */
  get utilization(): number {
    return this.pool?.utilization ?? 0;
  }

  async close(): Promise<void> {
    this.closed = true;
    const pool = this.pool;
    this.pool = null;
    if (pool) await pool.destroy();
  }
}
