import type { Runtime } from '../../runtime.js';
import { inTransaction, withConnection, type RawSql } from '../shared/index.js';
import type { DeliveryAttempt } from '../../entities/webhook-delivery.entity.js';

const FAILING_DISABLE_SECONDS = 5 * 24 * 3600;
/** Failed attempts in a row (any of its deliveries) after which an endpoint is paused. */
export const PAUSE_AFTER_FAILURES = 10;
/** The first pause; each further failed probe doubles it, up to PAUSE_MAX_SECONDS. */
export const PAUSE_BASE_SECONDS = 30;
export const PAUSE_MAX_SECONDS = 15 * 60;
/** Rows per statement: 9 bindings each keeps a statement far below PostgreSQL's 65,535. */
const ROWS_PER_STATEMENT = 500;

export interface SendResult {
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  retryAfterSeconds: number | null;
}

export type Decision =
  | { kind: 'delivered' }
  | { kind: 'gone' }
  | { kind: 'defer'; delaySeconds: number }
  | { kind: 'retry'; delaySeconds: number }
  | { kind: 'failed' };

/** One finished attempt of a leased delivery, waiting to be written. */
export interface AttemptOutcome {
  deliveryId: string;
  /** The claim the attempt was made under; a delivery taken back since is not written. */
  claimToken: string;
  endpointId: string;
  result: SendResult;
  decision: Decision;
  /** When the response (or the error) came back, ms since the epoch: retry delays count from here. */
  finishedAt: number;
}

export interface ScheduledRetry {
  deliveryId: string;
  endpointId: string;
  at: Date;
}

/** An endpoint paused by this batch's failures, until `until` (one probe is sent then). */
export interface EndpointPause {
  endpointId: string;
  until: Date;
}

/** What a batch of attempts leads to: retries and deferrals to wake, endpoints paused. */
export interface Recorded {
  retries: ScheduledRetry[];
  paused: EndpointPause[];
}

interface DeliveryRow {
  id: string;
  token: string;
  status: string;
  consumed: number;
  deferred: number;
  next: Date | null;
  attempt: string;
  deliveredAt: Date | null;
  error: string | null;
}

/** The delivery row an outcome leads to: the attempt logged, the ladder advanced or closed. */
function deliveryRow(o: AttemptOutcome): DeliveryRow {
  const { decision, result } = o;
  const attempt: DeliveryAttempt = {
    at: new Date(o.finishedAt - result.durationMs).toISOString(),
    status_code: result.statusCode,
    error: result.error,
    duration_ms: result.durationMs,
    ...(decision.kind === 'defer' ? { deferred: true } : {}),
  };
  const next =
    decision.kind === 'defer' || decision.kind === 'retry'
      ? new Date(o.finishedAt + decision.delaySeconds * 1000)
      : null;
  const status = decision.kind === 'delivered' ? 'delivered' : next ? 'pending' : 'failed';
  return {
    id: o.deliveryId,
    token: o.claimToken,
    status,
    consumed: decision.kind === 'defer' ? 0 : 1,
    deferred: decision.kind === 'defer' ? Math.round(decision.delaySeconds) : 0,
    next,
    attempt: JSON.stringify([attempt]),
    deliveredAt: status === 'delivered' ? new Date(o.finishedAt) : null,
    error: result.error,
  };
}

export type EndpointAction = 'ok' | 'fail' | 'restart' | 'gone';

/**
 * What the attempts of one batch mean for each endpoint, replayed in the order they finished:
 * `ok` clears the failing run, `fail` starts or continues it (and may disable after 5 days),
 * `restart` is a failing run that began after a success within the batch, `gone` disables.
 * `failures`: the failed attempts after the batch's last success. Deferrals (429/503) change nothing.
 */
export function endpointActions(outcomes: AttemptOutcome[]): Map<string, { action: EndpointAction; failures: number }> {
  const actions = new Map<string, { action: EndpointAction; failures: number }>();
  for (const o of [...outcomes].sort((a, b) => a.finishedAt - b.finishedAt)) {
    const before = actions.get(o.endpointId);
    if (before?.action === 'gone' || o.decision.kind === 'defer') continue;
    if (o.decision.kind === 'gone') actions.set(o.endpointId, { action: 'gone', failures: 0 });
    else if (o.decision.kind === 'delivered') actions.set(o.endpointId, { action: 'ok', failures: 0 });
    else if (before?.action === 'ok' || before?.action === 'restart')
      actions.set(o.endpointId, { action: 'restart', failures: before.failures + 1 });
    else actions.set(o.endpointId, { action: 'fail', failures: (before?.failures ?? 0) + 1 });
  }
  return actions;
}

/** `($1, $2::text), ($3, $4::text)...` for `rows` rows of the given column casts. */
const valuesList = (rows: number, casts: string[]) =>
  Array.from(
    { length: rows },
    (_, r) => `(${casts.map((cast, c) => `$${r * casts.length + c + 1}${cast}`).join(', ')})`,
  ).join(', ');

async function updateDeliveries(sql: RawSql, rows: DeliveryRow[]): Promise<Set<string>> {
  const values = valuesList(rows.length, [
    '',
    '',
    '::text',
    '::int',
    '::int',
    '::timestamptz',
    '::jsonb',
    '::timestamptz',
    '::text',
  ]);
  const bindings = rows.flatMap((r) => [
    r.id,
    r.token,
    r.status,
    r.consumed,
    r.deferred,
    r.next,
    r.attempt,
    r.deliveredAt,
    r.error,
  ]);
  const updated = await sql.query<{ id: string }>(
    `update webhook_deliveries d set status = v.status, attempt_count = d.attempt_count + v.consumed,
       deferred_seconds = d.deferred_seconds + v.deferred, next_attempt_at = coalesce(v.next, d.next_attempt_at),
       lease_until = null, claim_token = null, attempts = d.attempts || v.attempt, delivered_at = v.delivered_at,
       last_error = v.error, updated_at = now()
     from (values ${values}) as v(id, token, status, consumed, deferred, next, attempt, delivered_at, error)
     where d.id = v.id and d.claim_token = v.token
     returning d.id`,
    bindings,
  );
  return new Set(updated.map((r) => r.id));
}

/**
 * One statement for every endpoint touched by the batch; rows with nothing to change are not
 * written. An endpoint whose failures in a row reach PAUSE_AFTER_FAILURES is paused (its
 * deliveries wait, spending no attempt) for PAUSE_BASE_SECONDS, doubled by each further failure
 * up to PAUSE_MAX_SECONDS; a success ends the pause. Returns the endpoints paused now.
 */
async function updateEndpoints(
  sql: RawSql,
  actions: Map<string, { action: EndpointAction; failures: number }>,
): Promise<EndpointPause[]> {
  if (actions.size === 0) return [];
  const values = valuesList(actions.size, ['', '::text', '::int']);
  const failingTooLong = `e.failing_since <= now() - make_interval(secs => ${FAILING_DISABLE_SECONDS})`;
  const disable = `e.status = 'active' and (v.action = 'gone' or (v.action = 'fail' and ${failingTooLong}))`;
  const failuresAfter = `(case v.action when 'restart' then v.failures else e.consecutive_failures + v.failures end)`;
  const pausing = `(v.action in ('fail', 'restart') and ${failuresAfter} >= ${PAUSE_AFTER_FAILURES})`;
  const pauseSeconds = `least(${PAUSE_MAX_SECONDS}, ${PAUSE_BASE_SECONDS} * power(2, least(${failuresAfter} - ${PAUSE_AFTER_FAILURES}, 16)))`;
  // RETURNING sees the updated row: `pausing` there reads the new failure count.
  const rows = await sql.query<{ id: string; paused_until: Date | string | null; pausing: boolean }>(
    `update webhook_endpoints e set
       failing_since = case v.action when 'ok' then null when 'restart' then now() when 'fail' then coalesce(e.failing_since, now()) else e.failing_since end,
       consecutive_failures = case when v.action = 'ok' then 0 when v.action in ('fail', 'restart') then ${failuresAfter} else e.consecutive_failures end,
       paused_until = case when v.action = 'ok' then null when ${pausing} then now() + make_interval(secs => ${pauseSeconds}) else e.paused_until end,
       status = case when ${disable} then 'disabled' else e.status end,
       disabled_reason = case when ${disable} then (case v.action when 'gone' then 'gone' else 'failing' end) else e.disabled_reason end,
       updated_at = case when v.action = 'ok' then e.updated_at else now() end
     from (values ${values}) as v(id, action, failures)
     where e.id = v.id and (case v.action when 'ok' then e.failing_since is not null or e.consecutive_failures > 0 or e.paused_until is not null else e.status = 'active' end)
     returning e.id, e.paused_until, (v.action in ('fail', 'restart') and e.consecutive_failures >= ${PAUSE_AFTER_FAILURES}) as pausing`,
    [...actions].flatMap(([id, a]) => [id, a.action, a.failures]),
  );
  return rows
    .filter((r) => r.pausing && r.paused_until)
    .map((r) => ({ endpointId: r.id, until: new Date(r.paused_until!) }));
}

/**
 * Writes a batch of attempts in one transaction: each delivery only if its sender still holds
 * the claim (a sweep may have handed it to another sender), then the endpoints' consequences of
 * the attempts written. Returns the retries and deferrals to wake up and the endpoints paused.
 */
export async function recordOutcomes(orm: Runtime['orm'], outcomes: AttemptOutcome[]): Promise<Recorded> {
  const recorded: Recorded = { retries: [], paused: [] };
  for (let start = 0; start < outcomes.length; start += ROWS_PER_STATEMENT) {
    const chunk = outcomes.slice(start, start + ROWS_PER_STATEMENT);
    const rows = chunk.map(deliveryRow);
    await withConnection(orm, (sql) =>
      inTransaction(sql, async () => {
        const written = await updateDeliveries(sql, rows);
        recorded.paused.push(
          ...(await updateEndpoints(sql, endpointActions(chunk.filter((o) => written.has(o.deliveryId))))),
        );
        chunk.forEach((o, i) => {
          const row = rows[i]!;
          if (row.next && written.has(row.id))
            recorded.retries.push({ deliveryId: row.id, endpointId: o.endpointId, at: row.next });
        });
      }),
    );
  }
  return recorded;
}
