import { createHash } from 'node:crypto';
import { IdempotencyKey } from '../entities/idempotency-key.entity.js';
import { ApiError, idempotencyError, parameterInvalid } from '../errors.js';
import { systemFork } from '../orm.js';
import type { ServiceContext } from './context.js';
import { withConnection } from './raw-sql.js';

export interface StoredResponse {
  status: number;
  body: unknown;
  replayed: boolean;
}

const TTL_MS = 24 * 3600 * 1000;

/**
 * A stored answer is replayed verbatim, so it keeps the create answer's client_token (a bearer
 * credential) recoverable for 24 hours: it is stored encrypted (AES-256-GCM, the identity
 * vault), never in clear, and the cleanup job deletes it once the key expires.
 */
function unseal(ctx: ServiceContext, stored: unknown): unknown {
  const sealed = (stored as { sealed?: unknown } | null)?.sealed;
  return typeof sealed === 'string' ? ctx.runtime.vault.decrypt(sealed) : stored;
}

/** A stable hash of a JSON body (key order does not matter). */
export function requestHash(body: unknown): string {
  const canonical = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map(canonical)
      : value && typeof value === 'object'
        ? Object.fromEntries(Object.keys(value as object).sort().map((k) => [k, canonical((value as Record<string, unknown>)[k])]))
        : value;
  return createHash('sha256').update(JSON.stringify(canonical(body ?? {}))).digest('hex');
}

/** A claimed key: the handler may write its answer in its own transaction (see `answer`). */
export interface IdempotencyClaim {
  apiKeyId: string;
  key: string;
  /** The row update's values for `status` and `body`, the body sealed. */
  answer(status: number, body: unknown): { apiKeyId: string; key: string; status: number; sealedBody: string };
}

export interface HandlerResult {
  status: number;
  body: unknown;
  /** True when the handler already stored the answer under the claim, atomically with its writes. */
  stored?: boolean;
}

/**
 * Claims the key in one statement: a new row, or an expired one taken over (the cleanup job
 * may not have deleted it yet). Nothing returned: someone holds or has used the key.
 */
const CLAIM = `insert into idempotency_keys (api_key_id, key, request_hash, status, created_at, expires_at)
  values ($1, $2, $3, 'in_flight', now(), $4)
  on conflict (api_key_id, key) do update set request_hash = excluded.request_hash, status = 'in_flight', response_status = null,
    response_body = null, created_at = excluded.created_at, expires_at = excluded.expires_at
  where idempotency_keys.expires_at <= now()
  returning key`;

const STORE = `update idempotency_keys set status = 'completed', response_status = $1, response_body = $2::jsonb where api_key_id = $3 and key = $4`;

const sealedJson = (ctx: ServiceContext, body: unknown) => JSON.stringify({ sealed: ctx.runtime.vault.encrypt(body) });

/** The answer to a key someone else claimed: replay it, or refuse. */
async function answerForTakenKey(ctx: ServiceContext, apiKeyId: string, key: string, hash: string): Promise<StoredResponse> {
  const existing = await systemFork(ctx.runtime.orm).findOne(IdempotencyKey, { apiKeyId, key });
  if (!existing) throw idempotencyError('IDEMPOTENCY_KEY_IN_USE', 'A request with this Idempotency-Key is still being processed; retry shortly.');
  if (existing.requestHash !== hash) {
    throw idempotencyError('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was already used with a different request body.');
  }
  if (existing.status !== 'completed') {
    throw idempotencyError('IDEMPOTENCY_KEY_IN_USE', 'A request with this Idempotency-Key is still being processed; retry shortly.');
  }
  return { status: existing.responseStatus ?? 200, body: unseal(ctx, existing.responseBody), replayed: true };
}

/**
 * Idempotency-Key for creates (decisions.md): 24 hours, scoped to the API key. The first
 * request claims the key with an insert; a repeat with the same body replays the stored
 * answer, a different body is 409 IDEMPOTENCY_KEY_REUSED, and one arriving while the first
 * still runs is 409 IDEMPOTENCY_KEY_IN_USE. Server failures release the key for a retry.
 */
export async function withIdempotency(
  ctx: ServiceContext,
  key: string | undefined,
  body: unknown,
  handler: (claim: IdempotencyClaim | null) => Promise<HandlerResult>,
): Promise<StoredResponse> {
  if (key === undefined || ctx.caller.kind !== 'key') return { ...(await handler(null)), replayed: false };
  if (key.length === 0 || key.length > 255) throw parameterInvalid('Idempotency-Key', 'Idempotency-Key must be 1 to 255 characters.');
  const apiKeyId = ctx.caller.keyId;
  const hash = requestHash(body);
  const orm = ctx.runtime.orm;
  const claimed = await withConnection(orm, (sql) => sql.query(CLAIM, [apiKeyId, key, hash, new Date(Date.now() + TTL_MS)]));
  if (claimed.length === 0) return answerForTakenKey(ctx, apiKeyId, key, hash);
  const claim: IdempotencyClaim = { apiKeyId, key, answer: (status, answerBody) => ({ apiKeyId, key, status, sealedBody: sealedJson(ctx, answerBody) }) };
  const store = (status: number, responseBody: unknown) => withConnection(orm, (sql) => sql.query(STORE, [status, sealedJson(ctx, responseBody), apiKeyId, key]));
  try {
    const response = await handler(claim);
    if (!response.stored) await store(response.status, response.body);
    return { status: response.status, body: response.body, replayed: false };
  } catch (error) {
    if (error instanceof ApiError && error.status < 500) {
      await store(error.status, { error: error.toEnvelope(ctx.requestId) });
    } else {
      await withConnection(orm, (sql) => sql.query(`delete from idempotency_keys where api_key_id = $1 and key = $2`, [apiKeyId, key]));
    }
    throw error;
  }
}
