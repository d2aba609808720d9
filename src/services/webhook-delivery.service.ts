import { createHmac, randomUUID } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { Knex } from '@mikro-orm/postgresql';
import type { DeliveryAttempt } from '../entities/webhook-delivery.entity.js';
import { newId } from '../ids.js';
import type { Runtime } from '../runtime.js';
import { ForbiddenAddressError, guardedLookup, isForbiddenAddress, parseWebhookUrl } from './ssrf.js';

/** Agenda job names; the job files register handlers under these. */
export const DELIVER_WEBHOOK_JOB = 'webhooks.deliver';
export const DISPATCH_EVENTS_JOB = 'webhooks.dispatch';

export const DELIVERY_TIMEOUT_MS = 15_000;
/** Longer than any attempt (the timeout bounds lookup, connect and response), so a live sender never loses it. */
export const LEASE_SECONDS = 20;
const MAX_DEFERRAL_SECONDS = 6 * 3600;
const MAX_TOTAL_DEFERRAL_SECONDS = 24 * 3600;
const FAILING_DISABLE_MS = 5 * 24 * 3600 * 1000;
const FAN_OUT_BATCH = 200;

export interface EnvelopeSource {
  id: string;
  type: string;
  createdAt: Date;
  mode: string;
  test: boolean;
  payload: unknown;
}

/** The decisions.md envelope, serialised once: these exact bytes are signed and sent on every attempt. */
export function buildEnvelopeBody(event: EnvelopeSource): string {
  return JSON.stringify({ id: event.id, object: 'event', type: event.type, created_at: event.createdAt.toISOString(), mode: event.mode, test: event.test, data: event.payload });
}

/** Standard Webhooks: base64 HMAC-SHA256 of `${id}.${timestamp}.${body}` keyed by the secret's decoded bytes. */
export function signPayload(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

export const knexOf = (runtime: Runtime): Knex => runtime.orm.em.getConnection().getKnex();

interface EventRow { id: string; merchant_id: string; mode: string; type: string; api_key_id: string | null; payload: unknown; test: boolean; created_at: Date }
interface EndpointRow { id: string; merchant_id: string; mode: string; events: string[]; api_key_ids: string[] }

const subscribes = (endpoint: EndpointRow, event: EventRow): boolean =>
  endpoint.merchant_id === event.merchant_id &&
  endpoint.mode === event.mode &&
  endpoint.events.includes(event.type) &&
  (endpoint.api_key_ids.length === 0 || (event.api_key_id !== null && endpoint.api_key_ids.includes(event.api_key_id)));

/**
 * Fans one bounded batch of undispatched outbox events out to deliveries and marks the events
 * dispatched, in one transaction (skip locked: concurrent dispatchers take disjoint batches).
 * Returns the events taken and the ids of the deliveries created; the caller queues those.
 */
export async function fanOutBatch(runtime: Runtime, batchSize = FAN_OUT_BATCH): Promise<{ events: number; deliveryIds: string[] }> {
  return knexOf(runtime).transaction(async (trx) => {
    const events: EventRow[] = (
      await trx.raw(`select id, merchant_id, mode, type, api_key_id, payload, test, created_at from events where dispatched_at is null order by created_at limit ? for update skip locked`, [batchSize])
    ).rows;
    if (events.length === 0) return { events: 0, deliveryIds: [] };
    const merchants = [...new Set(events.map((e) => e.merchant_id))];
    const endpoints: EndpointRow[] = (
      await trx.raw(`select id, merchant_id, mode, events, api_key_ids from webhook_endpoints where status = 'active' and deleted_at is null and merchant_id in (${merchants.map(() => '?').join(',')})`, merchants)
    ).rows;
    const now = new Date();
    const rows = events.flatMap((event) =>
      endpoints.filter((endpoint) => subscribes(endpoint, event)).map((endpoint) => ({
        id: newId('del'), merchant_id: event.merchant_id, mode: event.mode, created_at: now, updated_at: now,
        endpoint_id: endpoint.id, event_id: event.id, event_type: event.type, test: event.test,
        body: buildEnvelopeBody({ id: event.id, type: event.type, createdAt: new Date(event.created_at), mode: event.mode, test: event.test, payload: event.payload }),
        next_attempt_at: now, attempts: '[]',
      })),
    );
    let deliveryIds: string[] = [];
    if (rows.length > 0) {
      const inserted = await trx('webhook_deliveries').insert(rows).onConflict(['event_id', 'endpoint_id']).ignore().returning('id');
      deliveryIds = inserted.map((r: { id: string }) => r.id);
    }
    await trx.raw(`update events set dispatched_at = ? where id in (${events.map(() => '?').join(',')})`, [now, ...events.map((e) => e.id)]);
    return { events: events.length, deliveryIds };
  });
}

/**
 * Re-queues deliveries whose sender died mid-attempt (lease expired) or whose wake-up job was
 * lost (due for a minute with no lease). Each is handed back with a fresh due time.
 */
export async function recoverStaleDeliveries(runtime: Runtime, limit = 200): Promise<string[]> {
  const result = await knexOf(runtime).raw(
    `with stale as (
       select id from webhook_deliveries
       where status = 'pending' and ((lease_until is not null and lease_until < now()) or (lease_until is null and next_attempt_at < now() - interval '60 seconds'))
       order by next_attempt_at limit ? for update skip locked)
     update webhook_deliveries d set lease_until = null, claim_token = null, next_attempt_at = now(), updated_at = now()
     from stale where d.id = stale.id returning d.id`,
    [limit],
  );
  return result.rows.map((r: { id: string }) => r.id);
}

export async function queueDeliveries(runtime: Runtime, ids: string[]): Promise<void> {
  for (const deliveryId of ids) await runtime.jobs.now(DELIVER_WEBHOOK_JOB, { deliveryId });
}

export interface SendResult {
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  retryAfterSeconds: number | null;
}

/** `Retry-After` as seconds (delta or HTTP date); null when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | null {
  if (!value) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - now) / 1000));
}

/** Keep-alive agents; idle sockets are unref'd by Node, so they never hold a process open. */
const agents = { http: new http.Agent({ keepAlive: true, maxSockets: 64, timeout: 5_000 }), https: new https.Agent({ keepAlive: true, maxSockets: 64, timeout: 5_000 }) };

/**
 * One POST, bounded by the timeout from lookup to the last response byte. Redirects are not
 * followed, and the address actually connected is validated by the guarded lookup.
 */
export function postWebhook(urlText: string, headers: Record<string, string>, body: string, allowPrivate: boolean): Promise<SendResult> {
  const started = Date.now();
  const done = (statusCode: number | null, error: string | null, retryAfterSeconds: number | null = null): SendResult => ({ statusCode, error, durationMs: Date.now() - started, retryAfterSeconds });
  const url = parseWebhookUrl(urlText);
  if (!(url instanceof URL)) return Promise.resolve(done(null, url.reason));
  const host = url.hostname.replace(/^\[|\]$/g, '');
  // A literal IP never goes through `lookup`, so it is checked here.
  if (!allowPrivate && net.isIP(host) && isForbiddenAddress(host)) return Promise.resolve(done(null, 'forbidden address'));
  return new Promise((resolve) => {
    const transport = url.protocol === 'https:' ? https : http;
    const req = transport.request(url, {
      method: 'POST',
      agent: url.protocol === 'https:' ? agents.https : agents.http,
      lookup: guardedLookup(allowPrivate),
      headers: { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), 'user-agent': 'idv-platform-webhooks/1' },
    });
    const timer = setTimeout(() => req.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })), DELIVERY_TIMEOUT_MS);
    req.on('response', (res) => {
      res.resume(); // the body is not kept: it may echo anything
      res.on('end', () => {
        clearTimeout(timer);
        const status = res.statusCode ?? 0;
        const error = status >= 300 && status < 400 ? 'redirect not followed' : status >= 200 && status < 300 ? null : `HTTP ${status}`;
        resolve(done(status, error, parseRetryAfter(res.headers['retry-after'] as string | undefined)));
      });
      res.on('error', (e) => {
        clearTimeout(timer);
        resolve(done(res.statusCode ?? null, describe(e)));
      });
    });
    req.on('error', (e) => {
      clearTimeout(timer);
      resolve(done(null, describe(e)));
    });
    req.end(body);
  });
}

const describe = (e: Error): string =>
  e instanceof ForbiddenAddressError ? 'forbidden address' : `${(e as NodeJS.ErrnoException).code ?? 'error'}: ${e.message}`.slice(0, 300);

export type Decision =
  | { kind: 'delivered' }
  | { kind: 'gone' }
  | { kind: 'defer'; delaySeconds: number }
  | { kind: 'retry'; delaySeconds: number }
  | { kind: 'failed' };

/** Up to +10% jitter, so receivers recovering from an outage are not hit by a thundering herd. */
const jitter = (seconds: number): number => seconds * (1 + Math.random() * 0.1);

/**
 * What to do after one attempt: the decisions.md ladder (schedule[i] = wait before attempt
 * i+1), 429/503 deferrals that consume no attempt within their budget, 410 as gone.
 */
export function decide(result: SendResult, state: { attemptCount: number; deferredSeconds: number }, schedule: number[]): Decision {
  const code = result.statusCode;
  if (code !== null && code >= 200 && code < 300) return { kind: 'delivered' };
  if (code === 410) return { kind: 'gone' };
  const nextDelay = schedule[Math.min(state.attemptCount + 1, schedule.length - 1)] ?? 0;
  if (code === 429 || code === 503) {
    const budget = MAX_TOTAL_DEFERRAL_SECONDS - state.deferredSeconds;
    if (budget > 0) return { kind: 'defer', delaySeconds: Math.max(1, Math.min(result.retryAfterSeconds ?? nextDelay, MAX_DEFERRAL_SECONDS, budget)) };
  }
  if (state.attemptCount + 1 >= schedule.length) return { kind: 'failed' };
  return { kind: 'retry', delaySeconds: jitter(nextDelay) };
}

interface ClaimedDelivery { id: string; endpoint_id: string; event_id: string; body: string; attempt_count: number; deferred_seconds: number }
interface EndpointState { url: string; status: string; deleted_at: Date | null; secret_ciphertext: string; failing_since: Date | null }

/** Takes the delivery for one attempt, unless it is done, not yet due, or another sender holds it. */
async function claim(runtime: Runtime, deliveryId: string, token: string): Promise<ClaimedDelivery | undefined> {
  const result = await knexOf(runtime).raw(
    `update webhook_deliveries set lease_until = now() + make_interval(secs => ?), claim_token = ?, updated_at = now()
     where id = ? and status = 'pending' and next_attempt_at <= now() and (lease_until is null or lease_until < now())
     returning id, endpoint_id, event_id, body, attempt_count, deferred_seconds`,
    [LEASE_SECONDS, token, deliveryId],
  );
  return result.rows[0];
}

/** A wake-up that came before the due time (clocks, duplicates) goes back to sleep until then. */
async function rescheduleIfEarly(runtime: Runtime, deliveryId: string): Promise<void> {
  const row: { next_attempt_at: Date } | undefined = (
    await knexOf(runtime).raw(`select next_attempt_at from webhook_deliveries where id = ? and status = 'pending' and lease_until is null and next_attempt_at > now()`, [deliveryId])
  ).rows[0];
  if (row) await runtime.jobs.schedule(new Date(row.next_attempt_at), DELIVER_WEBHOOK_JOB, { deliveryId });
}

/** Closes a delivery without an attempt (endpoint deleted or disabled: deliveries stop). */
async function abandon(runtime: Runtime, id: string, token: string, reason: string): Promise<void> {
  await knexOf(runtime).raw(
    `update webhook_deliveries set status = 'failed', last_error = ?, lease_until = null, claim_token = null, updated_at = now() where id = ? and claim_token = ?`,
    [reason, id, token],
  );
}

/** Endpoint consequences of an attempt: success clears the failing run; 410 or 5 days of failures disable. */
async function updateEndpoint(trx: Knex.Transaction, endpointId: string, decision: Decision, consumedFailure: boolean): Promise<void> {
  if (decision.kind === 'delivered') {
    await trx.raw(`update webhook_endpoints set failing_since = null where id = ? and failing_since is not null`, [endpointId]);
  } else if (decision.kind === 'gone') {
    await trx.raw(`update webhook_endpoints set status = 'disabled', disabled_reason = 'gone', updated_at = now() where id = ? and status = 'active'`, [endpointId]);
  } else if (consumedFailure) {
    await trx.raw(
      `update webhook_endpoints set failing_since = coalesce(failing_since, now()),
         status = case when failing_since <= now() - make_interval(secs => ?) then 'disabled' else status end,
         disabled_reason = case when failing_since <= now() - make_interval(secs => ?) then 'failing' else disabled_reason end,
         updated_at = now()
       where id = ? and status = 'active'`,
      [FAILING_DISABLE_MS / 1000, FAILING_DISABLE_MS / 1000, endpointId],
    );
  }
}

/** Writes the attempt and the decision, only if this sender still holds the claim; returns the next due time. */
async function record(runtime: Runtime, d: ClaimedDelivery, token: string, result: SendResult, decision: Decision): Promise<Date | null> {
  const consumed = decision.kind !== 'defer';
  const attempt: DeliveryAttempt = {
    at: new Date(Date.now() - result.durationMs).toISOString(),
    status_code: result.statusCode,
    error: result.error,
    duration_ms: result.durationMs,
    ...(decision.kind === 'defer' ? { deferred: true } : {}),
  };
  const delay = decision.kind === 'defer' || decision.kind === 'retry' ? decision.delaySeconds : 0;
  const next = delay > 0 || decision.kind === 'retry' ? new Date(Date.now() + delay * 1000) : null;
  const status = decision.kind === 'delivered' ? 'delivered' : next ? 'pending' : 'failed';
  return knexOf(runtime).transaction(async (trx) => {
    const updated = await trx.raw(
      `update webhook_deliveries set status = ?, attempt_count = attempt_count + ?, deferred_seconds = deferred_seconds + ?,
         next_attempt_at = coalesce(?, next_attempt_at), lease_until = null, claim_token = null, attempts = attempts || ?::jsonb,
         delivered_at = ?, last_error = ?, updated_at = now()
       where id = ? and claim_token = ?`,
      [status, consumed ? 1 : 0, decision.kind === 'defer' ? Math.round(delay) : 0, next, JSON.stringify([attempt]),
        status === 'delivered' ? new Date() : null, result.error, d.id, token],
    );
    // A sweep took the delivery back (this attempt outlived its lease): its new sender records instead.
    if (updated.rowCount === 0) return null;
    await updateEndpoint(trx, d.endpoint_id, decision, consumed && decision.kind !== 'delivered');
    return next;
  });
}

/**
 * One attempt of one delivery: claim, sign with a fresh timestamp, POST the stored body, log
 * the attempt and schedule the next. Idempotent: a delivered or claimed delivery is left alone.
 */
export async function deliverWebhook(runtime: Runtime, deliveryId: string): Promise<void> {
  const token = randomUUID();
  const delivery = await claim(runtime, deliveryId, token);
  if (!delivery) return rescheduleIfEarly(runtime, deliveryId);
  const endpoint: EndpointState | undefined = (
    await knexOf(runtime).raw(`select url, status, deleted_at, secret_ciphertext, failing_since from webhook_endpoints where id = ?`, [delivery.endpoint_id])
  ).rows[0];
  if (!endpoint || endpoint.deleted_at) return abandon(runtime, delivery.id, token, 'endpoint deleted');
  if (endpoint.status !== 'active') return abandon(runtime, delivery.id, token, 'endpoint disabled');
  const secret = runtime.vault.decrypt<string>(endpoint.secret_ciphertext);
  const timestamp = Math.floor(Date.now() / 1000);
  const headers = {
    'webhook-id': delivery.event_id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signPayload(secret, delivery.event_id, timestamp, delivery.body),
  };
  const result = await postWebhook(endpoint.url, headers, delivery.body, runtime.config.webhookAllowPrivateNetworks);
  const decision = decide(result, { attemptCount: delivery.attempt_count, deferredSeconds: delivery.deferred_seconds }, runtime.config.webhookRetrySchedule);
  const next = await record(runtime, delivery, token, result, decision);
  if (next) await runtime.jobs.schedule(next, DELIVER_WEBHOOK_JOB, { deliveryId: delivery.id });
}

const DISPATCH_POLL_MS = 100;
/** How often a long dispatcher run re-queues deliveries whose sender died (lease expired). */
const RECOVERY_EVERY_MS = 2_000;

/**
 * Drains the outbox for about `windowMs` (or until `shouldStop`), polling every 100 ms (the
 * partial index makes an empty poll cheap), so an event is fanned out within a fraction of a
 * second of its commit.
 */
export async function dispatchEvents(runtime: Runtime, windowMs = 0, shouldStop: () => boolean = () => false): Promise<number> {
  const until = Date.now() + windowMs;
  let events = 0;
  let nextRecovery = 0;
  for (;;) {
    if (Date.now() >= nextRecovery) {
      await queueDeliveries(runtime, await recoverStaleDeliveries(runtime));
      nextRecovery = Date.now() + RECOVERY_EVERY_MS;
    }
    const batch = await fanOutBatch(runtime);
    events += batch.events;
    await queueDeliveries(runtime, batch.deliveryIds);
    if (batch.events === FAN_OUT_BATCH && !shouldStop()) continue; // a full batch: more are waiting
    if (shouldStop() || Date.now() + DISPATCH_POLL_MS > until) return events;
    await new Promise((r) => setTimeout(r, DISPATCH_POLL_MS));
  }
}
