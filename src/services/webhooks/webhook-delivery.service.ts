import { createHmac, randomUUID } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { Runtime } from '../../runtime.js';
import { inTransaction, withConnection } from '../shared/index.js';
import { ForbiddenAddressError, guardedLookup, isForbiddenAddress, parseWebhookUrl } from './ssrf.js';
import { recordOutcomes, type Decision, type Recorded, type SendResult } from './webhook-outcomes.js';

export type { Decision, SendResult } from './webhook-outcomes.js';

/** Agenda job names; the job files register handlers under these. */
export const DELIVER_WEBHOOK_JOB = 'webhooks.deliver';
export const DISPATCH_EVENTS_JOB = 'webhooks.dispatch';
export const RESUME_ENDPOINT_JOB = 'webhooks.resume';

/**
 * Attempts in flight at once for one endpoint, across every process (leased deliveries): a
 * slow or dead receiver holds at most this many, however large its backlog.
 */
export const MAX_IN_FLIGHT_PER_ENDPOINT = 32;
/** How long a delivery whose endpoint is at its in-flight cap waits before trying again (plus jitter). */
const BUSY_RETRY_MS = 1_000;
/** Deliveries queued at once when a probe finds a paused endpoint answering again (the sweep takes the rest). */
const RESUME_BATCH = 100;

export const DELIVERY_TIMEOUT_MS = 15_000;
/** Longer than any attempt (the timeout bounds lookup, connect and response), so a live sender never loses it. */
export const LEASE_SECONDS = 20;
const MAX_DEFERRAL_SECONDS = 6 * 3600;
const MAX_TOTAL_DEFERRAL_SECONDS = 24 * 3600;

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
  return JSON.stringify({
    id: event.id,
    object: 'event',
    type: event.type,
    created_at: event.createdAt.toISOString(),
    mode: event.mode,
    test: event.test,
    data: event.payload,
  });
}

/** Standard Webhooks: base64 HMAC-SHA256 of `${id}.${timestamp}.${body}` keyed by the secret's decoded bytes. */
export function signPayload(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/** Standard Webhooks headers for one attempt, signed with a fresh timestamp. */
export function signedHeaders(secret: string, eventId: string, body: string): Record<string, string> {
  const timestamp = Math.floor(Date.now() / 1000);
  return {
    'webhook-id': eventId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signPayload(secret, eventId, timestamp, body),
  };
}

/**
 * What a delivery job carries: the delivery, and its endpoint so that pausing the endpoint can
 * cancel all of its jobs in one statement (Agenda matches job data by containment).
 */
export interface DeliverJobData {
  deliveryId: string;
  endpointId?: string;
}

/** Hands deliveries to the Agenda delivery job, which claims each before its attempt. */
export async function queueDeliveries(runtime: Runtime, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  const rows = await withConnection(runtime.orm, (sql) =>
    sql.query<{ id: string; endpoint_id: string }>(
      `select id, endpoint_id from webhook_deliveries where id = any($1::text[])`,
      [ids],
    ),
  );
  for (const row of rows)
    await runtime.jobs.now<DeliverJobData>(DELIVER_WEBHOOK_JOB, { deliveryId: row.id, endpointId: row.endpoint_id });
}

/**
 * A newly paused endpoint: its deliveries due before the pause ends wait for its end (no
 * attempt spent), and every delivery job of the endpoint is cancelled in one statement, so a
 * backlog of thousands is not woken one job at a time to be told so. Deliveries due later lost
 * their job too: the stale sweep wakes them once due (it skips paused endpoints).
 */
async function parkEndpoint(runtime: Runtime, endpointId: string): Promise<void> {
  await withConnection(runtime.orm, (sql) =>
    sql.query(
      `update webhook_deliveries d set next_attempt_at = e.paused_until, updated_at = now()
       from webhook_endpoints e
       where e.id = $1 and d.endpoint_id = e.id and e.paused_until > now() and d.status = 'pending' and d.lease_until is null and d.next_attempt_at < e.paused_until`,
      [endpointId],
    ),
  );
  await runtime.jobs.cancel(DELIVER_WEBHOOK_JOB, { endpointId });
}

/**
 * Retries and deferrals wake as Agenda jobs at their due time (the stale sweep covers a lost
 * one); a paused endpoint gets one probe job at the end of its pause.
 */
export async function scheduleRetries(runtime: Runtime, recorded: Recorded): Promise<void> {
  const paused = new Set(recorded.paused.map((p) => p.endpointId));
  for (const retry of recorded.retries) {
    if (!paused.has(retry.endpointId))
      await runtime.jobs.schedule<DeliverJobData>(retry.at, DELIVER_WEBHOOK_JOB, {
        deliveryId: retry.deliveryId,
        endpointId: retry.endpointId,
      });
  }
  for (const pause of recorded.paused) {
    runtime.logger.warn(
      `webhooks: endpoint ${pause.endpointId} paused until ${pause.until.toISOString()} after failing repeatedly; its deliveries wait (no attempt spent) and one probe is sent then`,
    );
    await parkEndpoint(runtime, pause.endpointId);
    await runtime.jobs.schedule(pause.until, RESUME_ENDPOINT_JOB, { endpointId: pause.endpointId });
  }
}

/** `Retry-After` as seconds (delta or HTTP date); null when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | null {
  if (!value) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - now) / 1000));
}

/** Keep-alive agents; idle sockets are unref'd by Node, so they never hold a process open. */
const agents = {
  http: new http.Agent({ keepAlive: true, maxSockets: 64, timeout: 5_000 }),
  https: new https.Agent({ keepAlive: true, maxSockets: 64, timeout: 5_000 }),
};

/**
 * One POST, bounded by the timeout from lookup to the last response byte. Redirects are not
 * followed, and the address actually connected is validated by the guarded lookup. `signal`
 * lets a stopping process abandon the attempt (its lease then hands the delivery on).
 */
export function postWebhook(
  urlText: string,
  headers: Record<string, string>,
  body: string,
  allowPrivate: boolean,
  signal?: AbortSignal,
): Promise<SendResult> {
  const started = Date.now();
  const done = (
    statusCode: number | null,
    error: string | null,
    retryAfterSeconds: number | null = null,
  ): SendResult => ({ statusCode, error, durationMs: Date.now() - started, retryAfterSeconds });
  const url = parseWebhookUrl(urlText);
  if (!(url instanceof URL)) return Promise.resolve(done(null, url.reason));
  const host = url.hostname.replace(/^\[|\]$/g, '');
  // A literal IP never goes through `lookup`, so it is checked here.
  if (!allowPrivate && net.isIP(host) && isForbiddenAddress(host))
    return Promise.resolve(done(null, 'forbidden address'));
  return new Promise((resolve) => {
    const transport = url.protocol === 'https:' ? https : http;
    const req = transport.request(url, {
      method: 'POST',
      agent: url.protocol === 'https:' ? agents.https : agents.http,
      signal,
      lookup: guardedLookup(allowPrivate),
      headers: {
        ...headers,
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body)),
        'user-agent': 'idv-platform-webhooks/1',
      },
    });
    const timer = setTimeout(
      () => req.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })),
      DELIVERY_TIMEOUT_MS,
    );
    req.on('response', (res) => {
      res.resume(); // the body is not kept: it may echo anything
      res.on('end', () => {
        clearTimeout(timer);
        const status = res.statusCode ?? 0;
        const error =
          status >= 300 && status < 400
            ? 'redirect not followed'
            : status >= 200 && status < 300
              ? null
              : `HTTP ${status}`;
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
  e instanceof ForbiddenAddressError
    ? 'forbidden address'
    : `${(e as NodeJS.ErrnoException).code ?? 'error'}: ${e.message}`.slice(0, 300);

/** Up to +10% jitter, so receivers recovering from an outage are not hit by a thundering herd. */
const jitter = (seconds: number): number => seconds * (1 + Math.random() * 0.1);

/**
 * What to do after one attempt: the decisions.md ladder (schedule[i] = wait before attempt
 * i+1), 429/503 deferrals that consume no attempt within their budget, 410 as gone.
 */
export function decide(
  result: SendResult,
  state: { attemptCount: number; deferredSeconds: number },
  schedule: number[],
): Decision {
  const code = result.statusCode;
  if (code !== null && code >= 200 && code < 300) return { kind: 'delivered' };
  if (code === 410) return { kind: 'gone' };
  const nextDelay = schedule[Math.min(state.attemptCount + 1, schedule.length - 1)] ?? 0;
  if (code === 429 || code === 503) {
    const budget = MAX_TOTAL_DEFERRAL_SECONDS - state.deferredSeconds;
    if (budget > 0)
      return {
        kind: 'defer',
        delaySeconds: Math.max(1, Math.min(result.retryAfterSeconds ?? nextDelay, MAX_DEFERRAL_SECONDS, budget)),
      };
  }
  if (state.attemptCount + 1 >= schedule.length) return { kind: 'failed' };
  return { kind: 'retry', delaySeconds: jitter(nextDelay) };
}

interface ClaimedDelivery {
  id: string;
  endpoint_id: string;
  event_id: string;
  body: string;
  attempt_count: number;
  deferred_seconds: number;
}
interface EndpointState {
  url: string;
  status: string;
  deleted_at: Date | string | null;
  secret_ciphertext: string;
  failing_since: Date | string | null;
}

type Claim =
  | { kind: 'claimed'; delivery: ClaimedDelivery }
  | { kind: 'parked' }
  | { kind: 'busy'; endpointId: string }
  | { kind: 'none' };

/**
 * Takes the delivery for one attempt, unless it is done, not yet due, or another sender holds
 * it (`none`); its endpoint is paused (`parked`: it waits for the pause's probe, with no job of
 * its own); or its endpoint already has MAX_IN_FLIGHT_PER_ENDPOINT attempts in flight (`busy`).
 * The endpoint's advisory lock makes the count and the claim one step across processes.
 */
async function claim(runtime: Runtime, deliveryId: string, token: string): Promise<Claim> {
  return withConnection(runtime.orm, (sql) =>
    inTransaction(sql, async (): Promise<Claim> => {
      const [due] = await sql.query<{ endpoint_id: string; paused: boolean }>(
        `select d.endpoint_id, coalesce(e.paused_until > now(), false) as paused
         from webhook_deliveries d join webhook_endpoints e on e.id = d.endpoint_id
         where d.id = $1 and d.status = 'pending' and d.next_attempt_at <= now() and (d.lease_until is null or d.lease_until < now())`,
        [deliveryId],
      );
      if (!due) return { kind: 'none' };
      if (due.paused) {
        await sql.query(
          `update webhook_deliveries d set next_attempt_at = greatest(d.next_attempt_at, e.paused_until), lease_until = null, claim_token = null, updated_at = now()
           from webhook_endpoints e where d.id = $1 and e.id = d.endpoint_id and d.status = 'pending' and (d.lease_until is null or d.lease_until < now())`,
          [deliveryId],
        );
        return { kind: 'parked' };
      }
      await sql.query(`select pg_advisory_xact_lock(hashtext('webhook-endpoint:' || $1))`, [due.endpoint_id]);
      const rows = await sql.query<ClaimedDelivery>(
        `update webhook_deliveries set lease_until = now() + make_interval(secs => $1), claim_token = $2, updated_at = now()
         where id = $3 and status = 'pending' and next_attempt_at <= now() and (lease_until is null or lease_until < now())
           and (select count(*) from webhook_deliveries o where o.endpoint_id = $4 and o.lease_until > now()) < $5
         returning id, endpoint_id, event_id, body, attempt_count, deferred_seconds`,
        [LEASE_SECONDS, token, deliveryId, due.endpoint_id, MAX_IN_FLIGHT_PER_ENDPOINT],
      );
      return rows[0] ? { kind: 'claimed', delivery: rows[0] } : { kind: 'busy', endpointId: due.endpoint_id };
    }),
  );
}

/** A wake-up that came before the due time (clocks, duplicates) goes back to sleep until then. */
async function rescheduleIfEarly(runtime: Runtime, deliveryId: string): Promise<void> {
  const [row] = await withConnection(runtime.orm, (sql) =>
    sql.query<{ next_attempt_at: Date | string; endpoint_id: string }>(
      `select next_attempt_at, endpoint_id from webhook_deliveries where id = $1 and status = 'pending' and lease_until is null and next_attempt_at > now()`,
      [deliveryId],
    ),
  );
  if (row)
    await runtime.jobs.schedule<DeliverJobData>(new Date(row.next_attempt_at), DELIVER_WEBHOOK_JOB, {
      deliveryId,
      endpointId: row.endpoint_id,
    });
}

/** Closes a delivery without an attempt (endpoint deleted or disabled: deliveries stop). */
async function abandon(runtime: Runtime, id: string, token: string, reason: string): Promise<void> {
  await withConnection(runtime.orm, (sql) =>
    sql.query(
      `update webhook_deliveries set status = 'failed', last_error = $1, lease_until = null, claim_token = null, updated_at = now() where id = $2 and claim_token = $3`,
      [reason, id, token],
    ),
  );
}

/**
 * One attempt of one delivery: claim, sign with a fresh timestamp, POST the stored body, log
 * the attempt and schedule the next. Idempotent: a delivered or claimed delivery is left alone.
 */
export async function deliverWebhook(runtime: Runtime, deliveryId: string): Promise<void> {
  const token = randomUUID();
  const claimed = await claim(runtime, deliveryId, token);
  if (claimed.kind === 'none') return rescheduleIfEarly(runtime, deliveryId);
  if (claimed.kind === 'parked') return;
  if (claimed.kind === 'busy') {
    return runtime.jobs.schedule<DeliverJobData>(
      new Date(Date.now() + BUSY_RETRY_MS * (1 + Math.random())),
      DELIVER_WEBHOOK_JOB,
      { deliveryId, endpointId: claimed.endpointId },
    );
  }
  const delivery = claimed.delivery;
  const [endpoint] = await withConnection(runtime.orm, (sql) =>
    sql.query<EndpointState>(
      `select url, status, deleted_at, secret_ciphertext, failing_since from webhook_endpoints where id = $1`,
      [delivery.endpoint_id],
    ),
  );
  if (!endpoint || endpoint.deleted_at) return abandon(runtime, delivery.id, token, 'endpoint deleted');
  if (endpoint.status !== 'active') return abandon(runtime, delivery.id, token, 'endpoint disabled');
  const secret = runtime.vault.decrypt<string>(endpoint.secret_ciphertext);
  const result = await postWebhook(
    endpoint.url,
    signedHeaders(secret, delivery.event_id, delivery.body),
    delivery.body,
    runtime.config.webhookAllowPrivateNetworks,
  );
  const decision = decide(
    result,
    { attemptCount: delivery.attempt_count, deferredSeconds: delivery.deferred_seconds },
    runtime.config.webhookRetrySchedule,
  );
  const outcome = {
    deliveryId: delivery.id,
    claimToken: token,
    endpointId: delivery.endpoint_id,
    result,
    decision,
    finishedAt: Date.now(),
  };
  await scheduleRetries(runtime, await recordOutcomes(runtime.orm, [outcome]));
}

/**
 * The end of an endpoint's pause: one probe (its oldest waiting delivery) is attempted. A
 * success ends the pause (see recordOutcomes) and queues a first batch of the waiting
 * deliveries (the stale sweep takes the rest); a failure pauses it again, for longer.
 */
export async function resumeEndpoint(runtime: Runtime, endpointId: string): Promise<void> {
  const [probe] = await withConnection(runtime.orm, (sql) =>
    sql.query<{ id: string }>(
      `update webhook_deliveries set next_attempt_at = now(), updated_at = now()
       where id = (select d.id from webhook_deliveries d join webhook_endpoints e on e.id = d.endpoint_id
                   where d.endpoint_id = $1 and d.status = 'pending' and (d.lease_until is null or d.lease_until < now())
                     and e.status = 'active' and e.deleted_at is null and (e.paused_until is null or e.paused_until <= now())
                   order by d.next_attempt_at limit 1)
       returning id`,
      [endpointId],
    ),
  );
  if (!probe) return;
  await deliverWebhook(runtime, probe.id);
  const waiting = await withConnection(runtime.orm, (sql) =>
    sql.query<{ id: string }>(
      `select d.id from webhook_deliveries d join webhook_endpoints e on e.id = d.endpoint_id
       where d.endpoint_id = $1 and e.consecutive_failures = 0 and e.paused_until is null
         and d.status = 'pending' and d.lease_until is null and d.next_attempt_at <= now()
       order by d.next_attempt_at limit $2`,
      [endpointId, RESUME_BATCH],
    ),
  );
  await queueDeliveries(
    runtime,
    waiting.map((w) => w.id),
  );
}
