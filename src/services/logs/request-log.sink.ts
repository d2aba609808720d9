import { parentPort, workerData } from 'node:worker_threads';
import pg from 'pg';
import { requestLogId } from './request-log.ids.js';
import type { RequestLogEntry } from './request-log.writer.js';

/**
 * The request log's writer thread: takes batches of calls from the HTTP process's event loop
 * and inserts them on a connection of its own, so encoding and sending a batch (a third of
 * what the log cost the request path when the event loop did it) runs beside the requests,
 * not between them.
 */

/** From the writer: a batch (its entries as JSON), or a flush to acknowledge once all before it are written. */
export type SinkRequest = { type: 'batch'; entries: string } | { type: 'flush'; id: number; close: boolean };
export type SinkReply = { type: 'written'; entries: number } | { type: 'dropped'; entries: number; error: string } | { type: 'flushed'; id: number };

export interface SinkData {
  databaseUrl: string;
}

// Across accounts by design: one bulk insert carries the calls of every account of the process.
// What is the same for every call of a key (account, environment, key, its name) travels once
// per key ($1-$4), the rest once per call ($5-$13), joined on the key's position in the batch.
const INSERT_SQL = `insert into request_logs (id, merchant_id, mode, api_key_id, key_name, method, route, status, duration_ms, request_id, ip, created_at)
  select c.id, k.merchant_id, k.mode, k.api_key_id, k.key_name, c.method, c.route, c.status, c.duration_ms, c.request_id, c.ip, timestamptz 'epoch' + c.at_ms * interval '1 millisecond'
    from unnest($1::text[], $2::text[], $3::uuid[], $4::text[]) with ordinality k(merchant_id, mode, api_key_id, key_name, n)
    join unnest($5::int[], $6::text[], $7::text[], $8::text[], $9::smallint[], $10::real[], $11::text[], $12::text[], $13::bigint[])
           c(n, id, method, route, status, duration_ms, request_id, ip, at_ms) using (n)`;

/** A batch as it crosses threads: `createdAt` is its ISO string. */
type SentEntry = Omit<RequestLogEntry, 'createdAt'> & { createdAt: string };

/** The batch as the insert's parameters: each key's constant columns once, then one row per call. */
export function columnsOf(batch: SentEntry[]): unknown[] {
  const keyIndex = new Map<string, number>();
  const merchants: string[] = [];
  const modes: string[] = [];
  const keyIds: string[] = [];
  const keyNames: string[] = [];
  const rows = { n: [] as number[], id: [] as string[], method: [] as string[], route: [] as string[], status: [] as number[], duration: [] as number[], requestId: [] as string[], ip: [] as (string | null)[], atMs: [] as number[] };
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
    const atMs = Date.parse(e.createdAt);
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
  return [merchants, modes, keyIds, keyNames, rows.n, rows.id, rows.method, rows.route, rows.status, rows.duration, rows.requestId, rows.ip, rows.atMs];
}

/**
 * The thread's own connection. Its commits do not wait for the WAL to reach the disk
 * (synchronous_commit off, on this connection only): a log line is not worth an fsync on the
 * request path's database; a crash of PostgreSQL itself may lose its last fraction of a second
 * of log, as a crash of the HTTP process loses the batch it holds.
 */
class Connection {
  private client: pg.Client | undefined;

  constructor(private readonly databaseUrl: string) {}

  async query(text: string, values: unknown[]): Promise<void> {
    const client = this.client ?? (this.client = await this.connect());
    try {
      await client.query({ name: 'idv_request_log_insert', text, values });
    } catch (error) {
      // A lost connection is replaced on the next batch; a refused batch leaves it as it is.
      if (!(error instanceof pg.DatabaseError)) await this.reset();
      throw error;
    }
  }

  private async connect(): Promise<pg.Client> {
    const client = new pg.Client({ connectionString: this.databaseUrl, application_name: 'idv-request-log' });
    client.on('error', () => {
      if (this.client === client) this.client = undefined;
    });
    await client.connect();
    await client.query('set synchronous_commit = off');
    return client;
  }

  async reset(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }
}

function serve(port: NonNullable<typeof parentPort>, data: SinkData): void {
  const connection = new Connection(data.databaseUrl);
  const reply = (message: SinkReply) => port.postMessage(message);
  // One message at a time, in order: a flush is answered after every batch sent before it.
  let queue = Promise.resolve();
  port.on('message', (message: SinkRequest) => {
    queue = queue.then(async () => {
      if (message.type === 'flush') {
        if (message.close) await connection.reset();
        reply({ type: 'flushed', id: message.id });
        if (message.close) port.close();
        return;
      }
      const batch = JSON.parse(message.entries) as SentEntry[];
      try {
        await connection.query(INSERT_SQL, columnsOf(batch));
        reply({ type: 'written', entries: batch.length });
      } catch (error) {
        reply({ type: 'dropped', entries: batch.length, error: error instanceof Error ? error.message : String(error) });
      }
    });
  });
}

if (parentPort && (workerData as SinkData | undefined)?.databaseUrl) serve(parentPort, workerData as SinkData);
