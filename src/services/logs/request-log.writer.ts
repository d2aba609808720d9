import { Worker } from 'node:worker_threads';
import type { Mode } from '../../config.js';
import type { Logger } from '../../logger.js';
import type { Runtime } from '../../runtime.js';
import { workerScript } from '../../worker-script.js';
import type { SinkData, SinkReply, SinkRequest } from './request-log.sink.js';

/** One API call of a key, as the request log stores it (route masked, address truncated). */
export interface RequestLogEntry {
  merchantId: string;
  mode: Mode;
  apiKeyId: string;
  keyName: string;
  method: string;
  route: string;
  status: number;
  durationMs: number;
  requestId: string;
  ip: string | null;
  createdAt: Date;
}

export interface RequestLogWriterOptions {
  /** A batch waits at most this long before it is written. */
  flushIntervalMs?: number;
  /** A batch this large is written at once. */
  batchSize?: number;
  /** Entries held or on their way beyond this (the database is down) are dropped and counted, so memory stays bounded. */
  maxBuffered?: number;
}

/**
 * Collects request-log entries on the event loop and hands them, a full batch at a time or on a
 * short timer, to a writer thread with its own database connection (request-log.sink.ts): the
 * request path never waits on the database for its own log line, and the event loop spends a
 * JSON.stringify per batch on it, not the encoding and sending of an insert. A failed write is
 * logged and its entries dropped: the log must never fail or slow an API call.
 */
export class RequestLogWriter {
  private buffer: RequestLogEntry[] = [];
  private timer: NodeJS.Timeout | undefined;
  private worker: Worker | undefined;
  /** Entries handed to the thread and not yet written or dropped. */
  private inFlight = 0;
  private readonly flushes = new Map<number, () => void>();
  private flushSeq = 0;
  private closed = false;
  /** Entries lost to a full buffer or a failed write (process lifetime). */
  dropped = 0;
  private readonly flushIntervalMs: number;
  private readonly batchSize: number;
  private readonly maxBuffered: number;

  constructor(private readonly databaseUrl: string, private readonly logger: Logger, options: RequestLogWriterOptions = {}) {
    this.flushIntervalMs = options.flushIntervalMs ?? 500;
    this.batchSize = options.batchSize ?? 500;
    this.maxBuffered = options.maxBuffered ?? 20_000;
  }

  push(entry: RequestLogEntry): void {
    if (this.closed) return;
    if (this.buffer.length + this.inFlight >= this.maxBuffered) {
      this.dropped++;
      return;
    }
    this.buffer.push(entry);
    if (this.buffer.length >= this.batchSize) this.send(this.batchSize);
    else if (!this.timer) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.send(this.buffer.length);
      }, this.flushIntervalMs);
      this.timer.unref();
    }
  }

  /** Writes everything collected so far; resolves once it is in the database (or dropped). */
  flush(): Promise<void> {
    return this.handOver(false);
  }

  /** Stops collecting, writes what is held and ends the writer thread (shutdown). */
  async close(): Promise<void> {
    this.closed = true;
    await this.handOver(true);
  }

  private handOver(close: boolean): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.send(this.buffer.length);
    const worker = this.worker;
    if (!worker) return Promise.resolve();
    const id = ++this.flushSeq;
    return new Promise<void>((resolve) => {
      this.flushes.set(id, resolve);
      worker.postMessage({ type: 'flush', id, close } satisfies SinkRequest);
    });
  }

  /** Hands the first `count` entries held to the writer thread, in batches. */
  private send(count: number): void {
    while (count > 0 && this.buffer.length > 0) {
      const batch = this.buffer.splice(0, Math.min(count, this.batchSize));
      count -= batch.length;
      this.inFlight += batch.length;
      this.sink().postMessage({ type: 'batch', entries: JSON.stringify(batch) } satisfies SinkRequest);
    }
  }

  private sink(): Worker {
    if (this.worker) return this.worker;
    const { url, execArgv } = workerScript(import.meta.url, 'request-log.sink');
    const workerData: SinkData = { databaseUrl: this.databaseUrl };
    // A TypeScript entry (tests) is imported from a one-line script once tsx has registered.
    const worker = execArgv
      ? new Worker(`import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(url.href)}); })`, { eval: true, execArgv, workerData })
      : new Worker(url, { workerData });
    worker.unref();
    worker.on('message', (reply: SinkReply) => this.received(reply));
    worker.on('error', (error) => this.logger.warn({ err: error }, 'request log: the writer thread failed'));
    worker.on('exit', () => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      // Whatever it had not written is lost with it; a later batch starts a new thread.
      this.dropped += this.inFlight;
      this.inFlight = 0;
      for (const resolve of this.flushes.values()) resolve();
      this.flushes.clear();
    });
    this.worker = worker;
    return worker;
  }

  private received(reply: SinkReply): void {
    if (reply.type === 'flushed') {
      this.flushes.get(reply.id)?.();
      this.flushes.delete(reply.id);
      return;
    }
    this.inFlight -= reply.entries;
    if (reply.type === 'dropped') {
      this.dropped += reply.entries;
      this.logger.warn({ entries: reply.entries, error: reply.error }, 'request log: a batch could not be written and was dropped');
    }
  }
}

const writers = new WeakMap<Runtime, RequestLogWriter>();

/** The process's request-log writer; null when REQUEST_LOG=false (measuring its cost). */
export function requestLogOf(runtime: Runtime): RequestLogWriter | null {
  if (!runtime.config.requestLog) return null;
  let writer = writers.get(runtime);
  if (!writer) writers.set(runtime, (writer = new RequestLogWriter(runtime.databaseUrl, runtime.logger)));
  return writer;
}

/** Writes what the process still holds; the runtime calls it on shutdown, tests to read at once. */
export async function flushRequestLog(runtime: Runtime): Promise<void> {
  await writers.get(runtime)?.flush();
}

export async function closeRequestLog(runtime: Runtime): Promise<void> {
  const writer = writers.get(runtime);
  writers.delete(runtime);
  await writer?.close();
}
