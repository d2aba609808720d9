import { withConnection } from '../shared/index.js';
import type { Runtime } from '../../runtime.js';
import {
  decide,
  DELIVERY_TIMEOUT_MS,
  LEASE_SECONDS,
  MAX_IN_FLIGHT_PER_ENDPOINT,
  postWebhook,
  scheduleRetries,
  signedHeaders,
} from './webhook-delivery.service.js';
import { recordOutcomes, type AttemptOutcome } from './webhook-outcomes.js';

/** A delivery inserted already leased by the fan-out, with what its first attempt needs. */
export interface LeasedDelivery {
  id: string;
  claimToken: string;
  endpointId: string;
  eventId: string;
  body: string;
  url: string;
  secret: string;
  /**
   * Latest local time the attempt may start and still end (timeout included) inside its
   * lease; a delivery that waited longer is handed back rather than sent twice.
   */
  startBy: number;
}

export interface SenderOptions {
  /** Attempts in flight at once (the keep-alive agents allow 64 sockets per host). */
  concurrency?: number;
  /** Deliveries waiting to be sent beyond which the fan-out stops leasing to this sender. */
  capacity?: number;
  /** Finished attempts not yet written beyond which no new attempt starts (bounded memory). */
  maxUnwritten?: number;
  /** Attempts in flight at once for one endpoint (default MAX_IN_FLIGHT_PER_ENDPOINT). */
  perEndpoint?: number;
}

/** Time kept free at the end of a lease: clocks, the write of the outcome. */
const LEASE_MARGIN_MS = 2_000;

/** The local deadline for starting a first attempt leased at `leasedAt` (see LeasedDelivery.startBy). */
export const startByFor = (leasedAt: number): number =>
  leasedAt + LEASE_SECONDS * 1000 - DELIVERY_TIMEOUT_MS - LEASE_MARGIN_MS;

/**
 * First attempts of freshly fanned-out deliveries, sent from the dispatcher's process with
 * bounded concurrency and written back in batches (one transaction per batch instead of one
 * Agenda job, claim and transaction per delivery). Retries stay Agenda jobs. Everything here is
 * leased in the database: if the process dies, the stale-lease sweep redelivers.
 */
export class DeliverySender {
  private readonly concurrency: number;
  private readonly capacity: number;
  private readonly maxUnwritten: number;
  private readonly perEndpoint: number;
  /** Attempts in flight per endpoint, and the deliveries held back while their endpoint is at its cap. */
  private readonly inFlightOf = new Map<string, number>();
  private readonly held = new Map<string, LeasedDelivery[]>();
  private heldCount = 0;
  private queue: LeasedDelivery[] = [];
  private head = 0;
  private inFlight = 0;
  private unwritten: AttemptOutcome[] = [];
  private handBack: LeasedDelivery[] = [];
  private writing: Promise<void> | null = null;
  private closed = false;
  private readonly aborter = new AbortController();
  private waiters: (() => void)[] = [];

  constructor(
    private readonly runtime: Runtime,
    options: SenderOptions = {},
  ) {
    this.concurrency = options.concurrency ?? 64;
    this.capacity = options.capacity ?? 200;
    this.maxUnwritten = options.maxUnwritten ?? 1_000;
    this.perEndpoint = options.perEndpoint ?? MAX_IN_FLIGHT_PER_ENDPOINT;
  }

  private get waiting(): number {
    return this.queue.length - this.head + this.heldCount;
  }

  /** Takes back every held delivery of `endpointId` (or of every endpoint). */
  private release(endpointId?: string): LeasedDelivery[] {
    const ids = endpointId === undefined ? [...this.held.keys()] : [endpointId];
    const out: LeasedDelivery[] = [];
    for (const id of ids) {
      const list = this.held.get(id);
      if (!list) continue;
      this.held.delete(id);
      this.heldCount -= list.length;
      out.push(...list);
    }
    return out;
  }

  get hasRoom(): boolean {
    return !this.closed && this.waiting < this.capacity;
  }

  /** True once there is room for another batch, false if none came within `timeoutMs` (or the sender closed). */
  async waitForRoom(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (!this.hasRoom && !this.closed && Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, deadline - Date.now());
        this.waiters.push(() => (clearTimeout(timer), resolve()));
      });
    }
    return this.hasRoom;
  }

  /** Takes leased deliveries; returns at once (the caller goes on fanning out). */
  enqueue(deliveries: LeasedDelivery[]): void {
    if (this.closed) {
      this.handBack.push(...deliveries);
      this.write();
      return;
    }
    this.queue.push(...deliveries);
    this.pump();
  }

  /**
   * An endpoint's url, secret, status or deletion changed: the first attempts still waiting for
   * it are handed back (their leases ended), so delivery jobs send them with the endpoint as it
   * is now, or not at all. Attempts already in flight finish as they started.
   */
  endpointChanged(endpointId: string): void {
    const waiting = this.queue.slice(this.head);
    const stale = [...waiting.filter((d) => d.endpointId === endpointId), ...this.release(endpointId)];
    if (stale.length === 0) return;
    this.queue = waiting.filter((d) => d.endpointId !== endpointId);
    this.head = 0;
    this.handBack.push(...stale);
    this.pump();
  }

  private pump(): void {
    while (
      !this.closed &&
      this.inFlight < this.concurrency &&
      this.queue.length > this.head &&
      this.unwritten.length < this.maxUnwritten
    ) {
      const delivery = this.queue[this.head++]!;
      if (Date.now() > delivery.startBy) this.handBack.push(delivery);
      else if ((this.inFlightOf.get(delivery.endpointId) ?? 0) >= this.perEndpoint) this.hold(delivery);
      else
        void this.send(delivery).catch((error: Error) =>
          this.runtime.logger.error(
            { err: error },
            `webhooks: attempt of ${delivery.id} failed to run, its lease will redeliver`,
          ),
        );
    }
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    if (this.hasRoom) for (const wake of this.waiters.splice(0)) wake();
    if (this.handBack.length > 0) this.write();
  }

  /** Waits for a slot of its endpoint; the first attempt of that endpoint to finish puts it back in line. */
  private hold(delivery: LeasedDelivery): void {
    const list = this.held.get(delivery.endpointId);
    if (list) list.push(delivery);
    else this.held.set(delivery.endpointId, [delivery]);
    this.heldCount++;
  }

  private async send(d: LeasedDelivery): Promise<void> {
    this.inFlight++;
    this.inFlightOf.set(d.endpointId, (this.inFlightOf.get(d.endpointId) ?? 0) + 1);
    try {
      const result = await postWebhook(
        d.url,
        signedHeaders(d.secret, d.eventId, d.body),
        d.body,
        this.runtime.config.webhookAllowPrivateNetworks,
        this.aborter.signal,
      );
      // An attempt cut short by shutdown is not an attempt: the lease hands the delivery on.
      if (this.aborter.signal.aborted) return;
      const decision = decide(
        result,
        { attemptCount: 0, deferredSeconds: 0 },
        this.runtime.config.webhookRetrySchedule,
      );
      this.unwritten.push({
        deliveryId: d.id,
        claimToken: d.claimToken,
        endpointId: d.endpointId,
        result,
        decision,
        finishedAt: Date.now(),
      });
      this.write();
    } finally {
      this.inFlight--;
      const left = (this.inFlightOf.get(d.endpointId) ?? 1) - 1;
      if (left > 0) this.inFlightOf.set(d.endpointId, left);
      else this.inFlightOf.delete(d.endpointId);
      const next = this.held.get(d.endpointId)?.shift();
      if (next) {
        this.heldCount--;
        if (this.held.get(d.endpointId)!.length === 0) this.held.delete(d.endpointId);
        this.queue.splice(this.head, 0, next);
      }
      this.pump();
    }
  }

  /** One write at a time; whatever finished meanwhile goes in the next, so batches grow with load. */
  private write(): void {
    if (this.writing || (this.unwritten.length === 0 && this.handBack.length === 0)) return;
    const outcomes = this.unwritten.splice(0);
    const handBack = this.handBack.splice(0);
    this.writing = this.writeBatch(outcomes, handBack)
      .catch((error: Error) =>
        this.runtime.logger.error(
          { err: error },
          `webhooks: writing ${outcomes.length} attempt(s) failed, their leases will redeliver`,
        ),
      )
      .finally(() => {
        this.writing = null;
        this.pump();
        this.write();
      });
  }

  private async writeBatch(outcomes: AttemptOutcome[], handBack: LeasedDelivery[]): Promise<void> {
    if (handBack.length > 0) await expireLeases(this.runtime, handBack);
    if (outcomes.length === 0) return;
    const recorded = await recordOutcomes(this.runtime.orm, outcomes);
    // A paused endpoint's first attempts still waiting here go back: they wait for its probe.
    for (const pause of recorded.paused) this.endpointChanged(pause.endpointId);
    await scheduleRetries(this.runtime, recorded);
  }

  /**
   * Stops taking work: waiting deliveries are handed back at once, attempts in flight get
   * `drainMs` to finish and be written, then are abandoned to their leases.
   */
  async close(drainMs = 5_000): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.handBack.push(...this.queue.slice(this.head), ...this.release());
    this.queue = [];
    this.head = 0;
    for (const wake of this.waiters.splice(0)) wake();
    this.write();
    const deadline = Date.now() + drainMs;
    while (this.inFlight > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    if (this.inFlight > 0) this.aborter.abort();
    while (this.writing || this.unwritten.length > 0 || this.handBack.length > 0) {
      this.write();
      await this.writing;
    }
  }
}

/** Ends the leases of deliveries that will not be sent here, so the stale sweep queues them at once. */
async function expireLeases(runtime: Runtime, deliveries: LeasedDelivery[]): Promise<void> {
  await withConnection(runtime.orm, (sql) =>
    sql.query(
      `update webhook_deliveries d set lease_until = now() - interval '1 millisecond', updated_at = now()
       from unnest($1::text[], $2::text[]) as v(id, token) where d.id = v.id and d.claim_token = v.token and d.status = 'pending'`,
      [deliveries.map((d) => d.id), deliveries.map((d) => d.claimToken)],
    ),
  );
}

/** The process's sender, created on first use. */
export function senderFor(runtime: Runtime): DeliverySender {
  return (runtime.parts.sender ??= new DeliverySender(runtime));
}

/** On shutdown, after the jobs stopped and before the database closes. */
export async function closeSender(runtime: Runtime, drainMs?: number): Promise<void> {
  await runtime.parts.sender?.close(drainMs);
}
