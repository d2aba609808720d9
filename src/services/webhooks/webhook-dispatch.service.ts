import { randomUUID } from 'node:crypto';
import { newId } from '../../ids.js';
import type { Runtime } from '../../runtime.js';
import { outboxSignalFor, type OutboxSignal } from './outbox-signal.js';
import { inTransaction, withConnection, type RawSql } from '../shared/index.js';
import { buildEnvelopeBody, LEASE_SECONDS, queueDeliveries } from './webhook-delivery.service.js';
import { senderFor, startByFor, type LeasedDelivery } from './webhook-sender.js';

const FAN_OUT_BATCH = 200;
/** The fallback poll while the LISTEN connection is down (see OutboxSignal); also how soon an idle wait notices a stop. */
const DISPATCH_POLL_MS = 100;
/** How often a long dispatcher run re-queues deliveries whose sender died (lease expired). */
const RECOVERY_EVERY_MS = 2_000;
/**
 * How long the fan-out waits for the sender to make room before it hands a batch to the
 * Agenda delivery jobs instead: slow receivers may fill the sender, never stall the outbox.
 */
const ROOM_WAIT_MS = 500;
/**
 * Most first attempts one batch leases to the sender: an event fanned out to many endpoints
 * must not queue more than the sender can start within a lease; the rest go to Agenda jobs.
 */
const MAX_LEASED_PER_BATCH = 400;

interface EventRow {
  id: string;
  merchant_id: string;
  mode: string;
  type: string;
  api_key_id: string | null;
  payload: unknown;
  test: boolean;
  created_at: Date;
}
interface EndpointRow {
  id: string;
  merchant_id: string;
  mode: string;
  events: string[];
  api_key_ids: string[];
  url: string;
  secret_ciphertext: string;
  paused_until: Date | null;
}

const subscribes = (endpoint: EndpointRow, event: EventRow): boolean =>
  endpoint.merchant_id === event.merchant_id &&
  endpoint.mode === event.mode &&
  endpoint.events.includes(event.type) &&
  (endpoint.api_key_ids.length === 0 || (event.api_key_id !== null && endpoint.api_key_ids.includes(event.api_key_id)));

export interface FanOutResult {
  events: number;
  /** Deliveries created without a lease: the caller queues these as Agenda jobs. */
  deliveryIds: string[];
  /** With a lease limit: the deliveries created leased to the caller for their first attempt. */
  leased: LeasedDelivery[];
}

async function readBatch(sql: RawSql, batchSize: number): Promise<{ events: EventRow[]; endpoints: EndpointRow[] }> {
  const events = await sql.query<EventRow>(
    `select id, merchant_id, mode, type, api_key_id, payload, test, created_at from events where dispatched_at is null order by created_at limit $1 for update skip locked`,
    [batchSize],
  );
  if (events.length === 0) return { events, endpoints: [] };
  const merchants = [...new Set(events.map((e) => e.merchant_id))];
  const endpoints = await sql.query<EndpointRow>(
    `select id, merchant_id, mode, events, api_key_ids, url, secret_ciphertext, case when paused_until > now() then paused_until end as paused_until from webhook_endpoints
     where status = 'active' and deleted_at is null and merchant_id = any($1::text[])`,
    [merchants],
  );
  return { events, endpoints };
}

/**
 * The planned deliveries in one statement; `leased` rows start with this process's lease; a
 * paused endpoint's rows wait for its probe (`next_attempt_at` its pause's end). Conflicts
 * (already fanned out) are skipped.
 */
const INSERT_DELIVERIES = `
insert into webhook_deliveries (id, merchant_id, mode, created_at, updated_at, endpoint_id, event_id, event_type, test, body, next_attempt_at, attempts, lease_until, claim_token)
select x.id, x.merchant_id, x.mode, $2, $2, x.endpoint_id, x.event_id, x.event_type, x.test, x.body, coalesce(x.paused_until, $2), '[]'::jsonb,
       case when x.claim_token is not null then now() + make_interval(secs => $3) end, x.claim_token
from jsonb_to_recordset($1::jsonb) as x(id text, merchant_id text, mode text, endpoint_id text, event_id text, event_type text, test boolean, body text, claim_token text, paused_until timestamptz)
on conflict (event_id, endpoint_id) do nothing
returning id`;

/**
 * Fans one bounded batch of undispatched outbox events out to deliveries and marks the events
 * dispatched, in one transaction (skip locked: concurrent dispatchers take disjoint batches).
 * Up to `leaseLimit` deliveries are inserted already claimed (token and lease set) for a first
 * attempt by the caller, with each endpoint's url and secret read here once per batch; the
 * caller queues the others (`deliveryIds`) as Agenda jobs.
 */
export async function fanOutBatch(runtime: Runtime, batchSize = FAN_OUT_BATCH, leaseLimit = 0): Promise<FanOutResult> {
  const claimToken = leaseLimit > 0 ? randomUUID() : null;
  const leasedAt = Date.now();
  return withConnection(runtime.orm, (sql) =>
    inTransaction(sql, async () => {
      const { events, endpoints } = await readBatch(sql, batchSize);
      if (events.length === 0) return { events: 0, deliveryIds: [], leased: [] };
      const now = new Date();
      let leases = 0;
      const leaseNext = () => (claimToken && leases++ < leaseLimit ? claimToken : null);
      const planned = events.flatMap((event) => {
        const endpointsOf = endpoints.filter((endpoint) => subscribes(endpoint, event));
        if (endpointsOf.length === 0) return [];
        const body = buildEnvelopeBody({
          id: event.id,
          type: event.type,
          createdAt: new Date(event.created_at),
          mode: event.mode,
          test: event.test,
          payload: event.payload,
        });
        return endpointsOf.map((endpoint) => ({
          endpoint,
          row: {
            id: newId('del'),
            merchant_id: event.merchant_id,
            mode: event.mode,
            endpoint_id: endpoint.id,
            event_id: event.id,
            event_type: event.type,
            test: event.test,
            body,
            claim_token: endpoint.paused_until ? null : leaseNext(),
            paused_until: endpoint.paused_until,
          },
        }));
      });
      let inserted = new Set<string>();
      if (planned.length > 0) {
        const rows = await sql.query<{ id: string }>(INSERT_DELIVERIES, [
          JSON.stringify(planned.map((p) => p.row)),
          now,
          LEASE_SECONDS,
        ]);
        inserted = new Set(rows.map((r) => r.id));
      }
      await sql.query('update events set dispatched_at = $1 where id = any($2::text[])', [
        now,
        events.map((e) => e.id),
      ]);
      const created = planned.filter((p) => inserted.has(p.row.id));
      const leased = leasedDeliveries(
        runtime,
        created.filter((p) => p.row.claim_token),
        startByFor(leasedAt),
      );
      // A paused endpoint's deliveries get no job: its probe wakes them.
      return {
        events: events.length,
        deliveryIds: created.filter((p) => !p.row.claim_token && !p.row.paused_until).map((p) => p.row.id),
        leased,
      };
    }),
  );
}

/** What the sender needs for each leased delivery; each endpoint's secret is decrypted once. */
function leasedDeliveries(
  runtime: Runtime,
  planned: { endpoint: EndpointRow; row: { id: string; event_id: string; body: string; claim_token: string | null } }[],
  startBy: number,
): LeasedDelivery[] {
  const secrets = new Map<string, string>();
  const secretOf = (endpoint: EndpointRow): string => {
    let secret = secrets.get(endpoint.id);
    if (secret === undefined)
      secrets.set(endpoint.id, (secret = runtime.vault.decrypt<string>(endpoint.secret_ciphertext)));
    return secret;
  };
  return planned.map(({ endpoint, row }) => ({
    id: row.id,
    claimToken: row.claim_token!,
    endpointId: endpoint.id,
    eventId: row.event_id,
    body: row.body,
    url: endpoint.url,
    secret: secretOf(endpoint),
    startBy,
  }));
}

/**
 * Re-queues deliveries whose sender died mid-attempt (lease expired) or whose wake-up job was
 * lost (due for a minute with no lease). Each is handed back with a fresh due time. A paused
 * endpoint's deliveries are left to its probe.
 */
export async function recoverStaleDeliveries(runtime: Runtime, limit = 200): Promise<string[]> {
  const rows = await withConnection(runtime.orm, (sql) =>
    sql.query<{ id: string }>(
      `with stale as (
       select id from webhook_deliveries
       where status = 'pending' and ((lease_until is not null and lease_until < now()) or (lease_until is null and next_attempt_at < now() - interval '60 seconds'))
         and not exists (select 1 from webhook_endpoints e where e.id = webhook_deliveries.endpoint_id and e.paused_until > now())
       order by next_attempt_at limit $1 for update skip locked)
     update webhook_deliveries d set lease_until = null, claim_token = null, next_attempt_at = now(), updated_at = now()
     from stale where d.id = stale.id returning d.id`,
      [limit],
    ),
  );
  return rows.map((r) => r.id);
}

/**
 * One fan-out step: leased to this process's sender when it has room (or makes some soon),
 * otherwise handed to the Agenda delivery jobs, so the outbox keeps moving either way.
 */
async function dispatchBatch(runtime: Runtime, stopping: boolean): Promise<number> {
  const sender = senderFor(runtime);
  const direct = !stopping && (await sender.waitForRoom(ROOM_WAIT_MS));
  const batch = await fanOutBatch(runtime, FAN_OUT_BATCH, direct ? MAX_LEASED_PER_BATCH : 0);
  sender.enqueue(batch.leased);
  await queueDeliveries(runtime, batch.deliveryIds);
  return batch.events;
}

const following = new WeakSet<Runtime>();

/** Once per process: an endpoint changed anywhere hands back the first attempts this process's sender holds for it. */
function followEndpointChanges(runtime: Runtime, signal: OutboxSignal): void {
  if (following.has(runtime)) return;
  following.add(runtime);
  signal.onEndpointChange((endpointId) => senderFor(runtime).endpointChanged(endpointId));
}

/**
 * Drains the outbox for about `windowMs` (or until `shouldStop`). Between batches it sleeps
 * until an events commit notifies it (LISTEN/NOTIFY, see OutboxSignal), so an event is fanned
 * out moments after its commit while an idle outbox costs no queries; it still wakes every
 * `recoveryEveryMs` (2 s) for the stale-delivery sweep, and polls every 100 ms while the
 * LISTEN connection is down.
 */
export async function dispatchEvents(
  runtime: Runtime,
  windowMs = 0,
  shouldStop: () => boolean = () => false,
  recoveryEveryMs = RECOVERY_EVERY_MS,
): Promise<number> {
  const signal = await outboxSignalFor(runtime);
  followEndpointChanges(runtime, signal);
  const until = Date.now() + windowMs;
  let events = 0;
  let nextRecovery = 0;
  for (;;) {
    if (Date.now() >= nextRecovery) {
      await queueDeliveries(runtime, await recoverStaleDeliveries(runtime));
      nextRecovery = Date.now() + recoveryEveryMs;
    }
    // Read before looking at the table: a commit after this point wakes the wait below at once.
    const seen = signal.generation;
    const taken = await dispatchBatch(runtime, shouldStop());
    events += taken;
    if (taken === FAN_OUT_BATCH && !shouldStop()) continue; // a full batch: more are waiting
    if (shouldStop() || Date.now() + DISPATCH_POLL_MS > until) return events;
    if (!signal.listening) {
      await new Promise((r) => setTimeout(r, DISPATCH_POLL_MS));
      continue;
    }
    // Waits in short slices only to notice a stop promptly; a slice that ends costs no query.
    const deadline = Math.min(nextRecovery, until);
    while (signal.generation === seen && signal.listening && !shouldStop() && Date.now() < deadline) {
      await signal.wait(seen, Math.min(DISPATCH_POLL_MS, deadline - Date.now()));
    }
  }
}
