import { createHash } from 'node:crypto';
import { IdempotencyKey } from '../entities/idempotency-key.entity.js';
import { ApiError, idempotencyError, parameterInvalid } from '../errors.js';
import { systemFork } from '../orm.js';
import type { ServiceContext } from './context.js';

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
  handler: () => Promise<{ status: number; body: unknown }>,
): Promise<StoredResponse> {
  if (key === undefined || ctx.caller.kind !== 'key') return { ...(await handler()), replayed: false };
  if (key.length === 0 || key.length > 255) throw parameterInvalid('Idempotency-Key', 'Idempotency-Key must be 1 to 255 characters.');
  const apiKeyId = ctx.caller.keyId;
  const hash = requestHash(body);
  const connection = systemFork(ctx.runtime.orm).getConnection();
  await connection.execute(`delete from idempotency_keys where api_key_id = ? and key = ? and expires_at <= now()`, [apiKeyId, key]);
  const claimed = (await connection.execute(
    `insert into idempotency_keys (api_key_id, key, request_hash, status, created_at, expires_at)
     values (?, ?, ?, 'in_flight', now(), ?) on conflict do nothing returning key`,
    [apiKeyId, key, hash, new Date(Date.now() + TTL_MS)],
  )) as unknown[];
  if (claimed.length === 0) {
    const em = systemFork(ctx.runtime.orm);
    const existing = await em.findOne(IdempotencyKey, { apiKeyId, key });
    if (!existing) throw idempotencyError('IDEMPOTENCY_KEY_IN_USE', 'A request with this Idempotency-Key is still being processed; retry shortly.');
    if (existing.requestHash !== hash) {
      throw idempotencyError('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was already used with a different request body.');
    }
    if (existing.status !== 'completed') {
      throw idempotencyError('IDEMPOTENCY_KEY_IN_USE', 'A request with this Idempotency-Key is still being processed; retry shortly.');
    }
    return { status: existing.responseStatus ?? 200, body: unseal(ctx, existing.responseBody), replayed: true };
  }
  const store = (status: number, responseBody: unknown) =>
    connection.execute(`update idempotency_keys set status = 'completed', response_status = ?, response_body = ?::jsonb where api_key_id = ? and key = ?`, [
      status,
      JSON.stringify({ sealed: ctx.runtime.vault.encrypt(responseBody) }),
      apiKeyId,
      key,
    ]);
  try {
    const response = await handler();
    await store(response.status, response.body);
    return { ...response, replayed: false };
  } catch (error) {
    if (error instanceof ApiError && error.status < 500) {
      await store(error.status, { error: error.toEnvelope(ctx.requestId) });
    } else {
      await connection.execute(`delete from idempotency_keys where api_key_id = ? and key = ?`, [apiKeyId, key]);
    }
    throw error;
  }
}
