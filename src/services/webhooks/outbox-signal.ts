import pg from 'pg';
import type { Runtime } from '../../runtime.js';
import type { Logger } from '../../logger.js';

/** The channel the `events` insert trigger notifies (migration OutboxNotify). */
export const OUTBOX_CHANNEL = 'events_outbox';
/** The channel a webhook endpoint's url, secret, status or deletion change notifies, with its id (migration EndpointNotify). */
export const ENDPOINTS_CHANNEL = 'webhook_endpoints_changed';
/** How long a lost LISTEN connection waits before it connects again. */
const RECONNECT_MS = 1_000;

/**
 * Wakes the outbox dispatcher when events commit, instead of it polling the table. A statement
 * trigger on `events` calls pg_notify, which PostgreSQL delivers at commit (so the rows are
 * visible when the dispatcher looks) and collapses to one notification per transaction.
 *
 * `generation` counts notifications: a caller reads it before it looks at the table and waits
 * with that value, so a commit that lands between the look and the wait is never slept through.
 * While the connection is down `listening` is false and the dispatcher falls back to polling.
 */
export class OutboxSignal {
  generation = 0;
  private client: pg.Client | undefined;
  private connecting: Promise<void> | undefined;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private closed = false;
  /** A loss was logged and no connection came back since: one line per outage, not per retry. */
  private down = false;
  private readonly waiters = new Set<() => void>();
  private readonly endpointListeners = new Set<(endpointId: string) => void>();

  constructor(
    private readonly databaseUrl: string,
    private readonly logger: Logger,
  ) {}

  /** True while the LISTEN connection is up, so a commit is sure to wake a waiter. */
  get listening(): boolean {
    return this.client !== undefined;
  }

  /** Connects and LISTENs (once; later calls share the attempt). A failure leaves `listening` false and retries. */
  start(): Promise<void> {
    if (this.closed || this.client) return Promise.resolve();
    this.connecting ??= this.connect().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  /**
   * Resolves at the first notification after `seen` (at once if one already came), or after
   * `timeoutMs`, or when the signal closes.
   */
  wait(seen: number, timeoutMs: number): Promise<void> {
    if (this.generation !== seen || this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      this.waiters.add(done);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    await this.connecting?.catch(() => undefined);
    this.wake();
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.databaseUrl, application_name: 'idv-outbox-listener' });
    // A dropped connection reports 'error' and then 'end'; without a listener 'error' would crash the process.
    client.on('error', (error) => this.lost(client, error.message));
    client.on('end', () => this.lost(client, 'connection ended'));
    client.on('notification', (message) => {
      if (message.channel === ENDPOINTS_CHANNEL) {
        for (const listener of this.endpointListeners) listener(message.payload ?? '');
        return;
      }
      this.generation++;
      this.wake();
    });
    try {
      await client.connect();
      await client.query(`listen ${OUTBOX_CHANNEL}; listen ${ENDPOINTS_CHANNEL}`);
    } catch (error) {
      await client.end().catch(() => undefined);
      this.lost(client, (error as Error).message);
      return;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    if (this.down) this.logger.info('outbox: LISTEN connection is back');
    this.down = false;
    // Events committed while nobody listened: let the dispatcher look once.
    this.generation++;
    this.wake();
  }

  /**
   * Calls `listener` with the id of each webhook endpoint whose url, secret, status or deletion
   * another transaction committed (from any process). Returns the unsubscribe function.
   */
  onEndpointChange(listener: (endpointId: string) => void): () => void {
    this.endpointListeners.add(listener);
    return () => this.endpointListeners.delete(listener);
  }

  private lost(client: pg.Client, why: string): void {
    if (this.client === client) this.client = undefined;
    if (this.closed || this.reconnectTimer) return;
    if (!this.down) this.logger.warn(`outbox: LISTEN connection lost (${why}); polling until it is back`);
    this.down = true;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      void this.start();
    }, RECONNECT_MS);
    this.reconnectTimer.unref();
  }

  private wake(): void {
    for (const waiter of [...this.waiters]) waiter();
  }
}

/** The process's outbox signal, created and connected on first use (the dispatcher's first run). */
export async function outboxSignalFor(runtime: Runtime): Promise<OutboxSignal> {
  const signal = (runtime.parts.outboxSignal ??= new OutboxSignal(runtime.databaseUrl, runtime.logger));
  await signal.start();
  return signal;
}

/** On shutdown, after the jobs stopped (the dispatcher's run ended) and before the database closes. */
export async function closeOutboxSignal(runtime: Runtime): Promise<void> {
  await runtime.parts.outboxSignal?.close();
}
