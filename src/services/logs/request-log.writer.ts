import type { MikroORM } from '@mikro-orm/postgresql';
import type { Mode } from '../../config.js';
import { randomBase62 } from '../../ids.js';
import type { Logger } from '../../logger.js';
import type { Runtime } from '../../runtime.js';
import { withConnection } from '../shared/index.js';

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
  /** Entries held beyond this (the database is down) are dropped and counted, so memory stays bounded. */
  maxBuffered?: number;
}

// Across accounts by design: one bulk insert carries the calls of every account of the process.
const INSERT_SQL = `insert into request_logs (id, merchant_id, mode, api_key_id, key_name, method, route, status, duration_ms, request_id, ip, created_at)
  select * from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::smallint[], $9::real[], $10::text[], $11::text[], $12::timestamptz[])`;

/**
 * Collects request-log entries in memory and writes them in bulk inserts, on a short timer or
 * when a batch fills, so the request path never waits on the database for its own log line.
 * A failed write is logged and its entries dropped: the log must never fail or slow an API call.
 */
export class RequestLogWriter {
  private buffer: RequestLogEntry[] = [];
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();
  private closed = false;
  /** Entries lost to a full buffer or a failed write (process lifetime). */
  dropped = 0;
  private readonly flushIntervalMs: number;
  private readonly batchSize: number;
  private readonly maxBuffered: number;

  constructor(private readonly orm: MikroORM, private readonly logger: Logger, options: RequestLogWriterOptions = {}) {
    this.flushIntervalMs = options.flushIntervalMs ?? 500;
    this.batchSize = options.batchSize ?? 500;
    this.maxBuffered = options.maxBuffered ?? 20_000;
  }

  push(entry: RequestLogEntry): void {
    if (this.closed) return;
    if (this.buffer.length >= this.maxBuffered) {
      this.dropped++;
      return;
    }
    this.buffer.push(entry);
    if (this.buffer.length >= this.batchSize) void this.flush();
    else if (!this.timer) {
      this.timer = setTimeout(() => void this.flush(), this.flushIntervalMs);
      this.timer.unref();
    }
  }

  /** Writes everything collected so far; resolves once it is in the database (or dropped). */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.writing = this.writing.then(() => this.writeAll());
    return this.writing;
  }

  /** Stops collecting and writes what is held (shutdown). */
  async close(): Promise<void> {
    this.closed = true;
    await this.flush();
  }

  private async writeAll(): Promise<void> {
    while (this.buffer.length > 0) {
      const batch = this.buffer.splice(0, this.batchSize);
      try {
        await withConnection(this.orm, (sql) => sql.query(INSERT_SQL, columnsOf(batch), 'idv_request_log_insert'));
      } catch (error) {
        this.dropped += batch.length;
        this.logger.warn({ err: error, entries: batch.length }, 'request log: a batch could not be written and was dropped');
      }
    }
  }
}

/**
 * Time-ordered ids (a base-36 millisecond time, then random characters): the primary key's
 * btree grows at its right edge, as the other indexes do, instead of touching a random page
 * for every row the request path produced.
 */
export const requestLogId = (): string => `rlg_${Date.now().toString(36).padStart(9, '0')}${randomBase62(15)}`;

function columnsOf(batch: RequestLogEntry[]): unknown[] {
  return [
    batch.map(() => requestLogId()),
    batch.map((e) => e.merchantId),
    batch.map((e) => e.mode),
    batch.map((e) => e.apiKeyId),
    batch.map((e) => e.keyName.slice(0, 200)),
    batch.map((e) => e.method),
    batch.map((e) => e.route),
    batch.map((e) => e.status),
    batch.map((e) => e.durationMs),
    batch.map((e) => e.requestId),
    batch.map((e) => e.ip),
    batch.map((e) => e.createdAt.toISOString()),
  ];
}

const writers = new WeakMap<Runtime, RequestLogWriter>();

/** The process's request-log writer; null when REQUEST_LOG=false (measuring its cost). */
export function requestLogOf(runtime: Runtime): RequestLogWriter | null {
  if (!runtime.config.requestLog) return null;
  let writer = writers.get(runtime);
  if (!writer) writers.set(runtime, (writer = new RequestLogWriter(runtime.orm, runtime.logger)));
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
