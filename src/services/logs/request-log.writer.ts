import type { MikroORM } from '@mikro-orm/postgresql';
import type { Mode } from '../../config.js';
import { randomBase62 } from '../../ids.js';
import type { Logger } from '../../logger.js';
import type { Runtime } from '../../runtime.js';
import { inTransaction, withConnection, type RawSql } from '../shared/index.js';

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
// What is the same for every call of a key (account, environment, key, its name) travels once
// per key ($1-$4), the rest once per call ($5-$13), joined on the key's position in the batch.
const INSERT_SQL = `insert into request_logs (id, merchant_id, mode, api_key_id, key_name, method, route, status, duration_ms, request_id, ip, created_at)
  select c.id, k.merchant_id, k.mode, k.api_key_id, k.key_name, c.method, c.route, c.status, c.duration_ms, c.request_id, c.ip, timestamptz 'epoch' + c.at_ms * interval '1 millisecond'
    from unnest($1::text[], $2::text[], $3::uuid[], $4::text[]) with ordinality k(merchant_id, mode, api_key_id, key_name, n)
    join unnest($5::int[], $6::text[], $7::text[], $8::text[], $9::smallint[], $10::real[], $11::text[], $12::text[], $13::bigint[])
           c(n, id, method, route, status, duration_ms, request_id, ip, at_ms) using (n)`;

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
  /** A write of full batches is queued or running. */
  private draining = false;
  /** Entries lost to a full buffer or a failed write (process lifetime). */
  dropped = 0;
  private readonly flushIntervalMs: number;
  private readonly batchSize: number;
  private readonly maxBuffered: number;

  constructor(
    private readonly orm: MikroORM,
    private readonly logger: Logger,
    options: RequestLogWriterOptions = {},
  ) {
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
    if (this.buffer.length >= this.batchSize) {
      if (!this.draining) {
        this.draining = true;
        this.writing = this.writing.then(() => this.write(false));
      }
    } else if (!this.timer) {
      this.timer = setTimeout(() => void this.flush(), this.flushIntervalMs);
      this.timer.unref();
    }
  }

  /** Writes everything collected so far; resolves once it is in the database (or dropped). */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.writing = this.writing.then(() => this.write(true));
    return this.writing;
  }

  /** Stops collecting and writes what is held (shutdown). */
  async close(): Promise<void> {
    this.closed = true;
    await this.flush();
  }

  /**
   * Writes the full batches held (`all`: everything held when it starts, too). Calls arriving
   * during an insert wait for a full batch or the next timer: writing them at once turned a busy
   * process's log into a stream of small inserts, each a transaction of its own.
   */
  private async write(all: boolean): Promise<void> {
    let held = all ? this.buffer.length : 0;
    while (this.buffer.length >= this.batchSize || (held > 0 && this.buffer.length > 0)) {
      const batch = this.buffer.splice(0, held > 0 ? Math.min(held, this.batchSize) : this.batchSize);
      held -= batch.length;
      try {
        await withConnection(this.orm, (sql) => insertBatch(sql, batch));
      } catch (error) {
        this.dropped += batch.length;
        this.logger.warn(
          { err: error, entries: batch.length },
          'request log: a batch could not be written and was dropped',
        );
      }
    }
    if (!all) this.draining = false;
  }
}

/**
 * One batch in one transaction that does not wait for its WAL to reach the disk
 * (synchronous_commit off, for this transaction only): a log line is not worth an fsync on the
 * request path's database; a crash of PostgreSQL itself may lose its last fraction of a second
 * of log, as a crash of this process loses the batch it holds.
 */
async function insertBatch(sql: RawSql, batch: RequestLogEntry[]): Promise<void> {
  await inTransaction(sql, async () => {
    await sql.query('set local synchronous_commit = off');
    await sql.query(INSERT_SQL, columnsOf(batch), 'idv_request_log_insert');
  });
}

/**
 * A request-log id: `rlg_`, the call's millisecond in base 36 (9 characters), 15 random
 * characters. Time-ordered, so the index grows at its right edge; and a cursor is its own
 * position: `starting_after` needs no lookup (the table has no index on `id`).
 */
export const requestLogId = (atMs: number): string => `rlg_${atMs.toString(36).padStart(9, '0')}${randomBase62(15)}`;

/** A well-formed request-log id (what `requestLogId` makes). */
export const REQUEST_LOG_ID_PATTERN = /^rlg_[0-9a-z]{9}[0-9A-Za-z]{1,40}$/;

/** The (created_at, id) position a request-log id names; undefined for a malformed one. */
export function requestLogPosition(id: string): { at: Date; id: string } | undefined {
  if (!REQUEST_LOG_ID_PATTERN.test(id)) return undefined;
  return { at: new Date(parseInt(id.slice(4, 13), 36)), id };
}

/** The batch as the insert's parameters: each key's constant columns once, then one row per call. */
function columnsOf(batch: RequestLogEntry[]): unknown[] {
  const keyIndex = new Map<string, number>();
  const merchants: string[] = [];
  const modes: string[] = [];
  const keyIds: string[] = [];
  const keyNames: string[] = [];
  const rows = {
    n: [] as number[],
    id: [] as string[],
    method: [] as string[],
    route: [] as string[],
    status: [] as number[],
    duration: [] as number[],
    requestId: [] as string[],
    ip: [] as (string | null)[],
    atMs: [] as number[],
  };
  for (const e of batch) {
    // Keyed by id and name: a key renamed while the batch filled keeps each call's name.
    const group = `${e.apiKeyId}\u0000${e.keyName}`;
    let n = keyIndex.get(group);
    if (n === undefined) {
      keyIndex.set(group, (n = keyIds.length + 1));
      merchants.push(e.merchantId);
      modes.push(e.mode);
      keyIds.push(e.apiKeyId);
      keyNames.push(e.keyName.slice(0, 200));
    }
    const atMs = e.createdAt.getTime();
    rows.n.push(n);
    rows.id.push(requestLogId(atMs));
    rows.method.push(e.method);
    rows.route.push(e.route);
    rows.status.push(e.status);
    rows.duration.push(e.durationMs);
    rows.requestId.push(e.requestId);
    rows.ip.push(e.ip);
    rows.atMs.push(atMs);
  }
  return [
    merchants,
    modes,
    keyIds,
    keyNames,
    rows.n,
    rows.id,
    rows.method,
    rows.route,
    rows.status,
    rows.duration,
    rows.requestId,
    rows.ip,
    rows.atMs,
  ];
}

/** The process's request-log writer; null when REQUEST_LOG=false (measuring its cost). */
export function requestLogOf(runtime: Runtime): RequestLogWriter | null {
  if (!runtime.config.requestLog) return null;
  return (runtime.parts.requestLog ??= new RequestLogWriter(runtime.orm, runtime.logger));
}

/** Writes what the process still holds; the runtime calls it on shutdown, tests to read at once. */
export async function flushRequestLog(runtime: Runtime): Promise<void> {
  await runtime.parts.requestLog?.flush();
}

export async function closeRequestLog(runtime: Runtime): Promise<void> {
  const writer = runtime.parts.requestLog;
  runtime.parts.requestLog = undefined;
  await writer?.close();
}
