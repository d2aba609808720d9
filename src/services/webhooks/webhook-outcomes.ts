import type { Runtime } from '../../runtime.js';
import { inTransaction, withConnection, type RawSql } from '../shared/index.js';
import type { DeliveryAttempt } from '../../entities/webhook-delivery.entity.js';

const FAILING_DISABLE_SECONDS = 5 * 24 * 3600;
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
  at: Date;
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
  const next = decision.kind === 'defer' || decision.kind === 'retry' ? new Date(o.finishedAt + decision.delaySeconds * 1000) : null;
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

/**
 * What the attempts of one batch mean for each endpoint, replayed in the order they finished:
 * `ok` clears the failing run, `fail` starts or continues it (and may disable after 5 days),
 * `restart` is a failing run that began after a success within the batch, `gone` disables.
 * Deferrals (429/503) change nothing.
 */
export function endpointActions(outcomes: AttemptOutcome[]): Map<string, 'ok' | 'fail' | 'restart' | 'gone'> {
  const actions = new Map<string, 'ok' | 'fail' | 'restart' | 'gone'>();
  for (const o of [...outcomes].sort((a, b) => a.finishedAt - b.finishedAt)) {
    const before = actions.get(o.endpointId);
    if (before === 'gone' || o.decision.kind === 'defer') continue;
    if (o.decision.kind === 'gone') actions.set(o.endpointId, 'gone');
    else if (o.decision.kind === 'delivered') actions.set(o.endpointId, 'ok');
    else if (before === 'ok' || before === 'restart') actions.set(o.endpointId, 'restart');
    else actions.set(o.endpointId, 'fail');
  }
  return actions;
}

/** `($1, $2::text), ($3, $4::text)...` for `rows` rows of the given column casts. */
const valuesList = (rows: number, casts: string[]) =>
  Array.from({ length: rows }, (_, r) => `(${casts.map((cast, c) => `$${r * casts.length + c + 1}${cast}`).join(', ')})`).join(', ');

async function updateDeliveries(sql: RawSql, rows: DeliveryRow[]): Promise<Set<string>> {
  const values = valuesList(rows.length, ['', '', '::text', '::int', '::int', '::timestamptz', '::jsonb', '::timestamptz', '::text']);
  const bindings = rows.flatMap((r) => [r.id, r.token, r.status, r.consumed, r.deferred, r.next, r.attempt, r.deliveredAt, r.error]);
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

/** One statement for every endpoint touched by the batch; rows with nothing to change are not written. */
async function updateEndpoints(sql: RawSql, actions: Map<string, string>): Promise<void> {
  if (actions.size === 0) return;
  const values = valuesList(actions.size, ['', '::text']);
  const failingTooLong = `e.failing_since <= now() - make_interval(secs => ${FAILING_DISABLE_SECONDS})`;
  const disable = `e.status = 'active' and (v.action = 'gone' or (v.action = 'fail' and ${failingTooLong}))`;
  await sql.query(
    `update webhook_endpoints e set
       failing_since = case v.action when 'ok' then null when 'restart' then now() when 'fail' then coalesce(e.failing_since, now()) else e.failing_since end,
       status = case when ${disable} then 'disabled' else e.status end,
       disabled_reason = case when ${disable} then (case v.action when 'gone' then 'gone' else 'failing' end) else e.disabled_reason end,
       updated_at = case when v.action = 'ok' then e.updated_at else now() end
     from (values ${values}) as v(id, action)
     where e.id = v.id and (case v.action when 'ok' then e.failing_since is not null else e.status = 'active' end)`,
    [...actions].flat(),
  );
}

/**
 * Writes a batch of attempts in one transaction: each delivery only if its sender still holds
 * the claim (a sweep may have handed it to another sender), then the endpoints' consequences of
 * the attempts written. Returns the retries and deferrals to wake up.
 */
export async function recordOutcomes(orm: Runtime['orm'], outcomes: AttemptOutcome[]): Promise<ScheduledRetry[]> {
  const retries: ScheduledRetry[] = [];
  for (let start = 0; start < outcomes.length; start += ROWS_PER_STATEMENT) {
    const chunk = outcomes.slice(start, start + ROWS_PER_STATEMENT);
    const rows = chunk.map(deliveryRow);
    await withConnection(orm, (sql) =>
      inTransaction(sql, async () => {
        const written = await updateDeliveries(sql, rows);
        await updateEndpoints(sql, endpointActions(chunk.filter((o) => written.has(o.deliveryId))));
        for (const row of rows) if (row.next && written.has(row.id)) retries.push({ deliveryId: row.id, at: row.next });
      }),
    );
  }
  return retries;
}
