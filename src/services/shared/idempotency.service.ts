import { createHash } from 'node:crypto';
import { IdempotencyKey } from '../../entities/idempotency-key.entity.js';
import { ApiError, idempotencyError, parameterInvalid } from '../../errors.js';
import { systemFork } from '../../orm.js';
import type { ServiceContext } from './context.js';
import { tenantSql } from './sql.js';
import type { Vault } from './vault.js';

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

/** The body in a canonical form (key order does not matter). */
function canonicalJson(body: unknown): string {
  const canonical = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map(canonical)
      : value && typeof value === 'object'
        ? Object.fromEntries(
            Object.keys(value as object)
              .sort()
              .map((k) => [k, canonical((value as Record<string, unknown>)[k])]),
          )
        : value;
  return JSON.stringify(canonical(body ?? {}));
}

/**
 * What the key's row keeps of the request body: a keyed HMAC (the vault's fingerprint key),
 * `h1:`-prefixed. The body holds the applicant's email and reference, so a plain hash would let
 * anyone holding a copy of the database confirm a guessed address offline.
 */
export const requestHash = (vault: Vault, body: unknown): string => `h1:${vault.requestDigest(canonicalJson(body))}`;

/** Rows written before the keyed digest (at most a day old) still compare against the plain hash. */
const sameRequest = (stored: string, hash: string, body: unknown): boolean =>
  stored.startsWith('h1:')
    ? stored === hash
    : stored === createHash('sha256').update(canonicalJson(body)).digest('hex');

/** Thrown by a handler whose claim found the key held or used: withIdempotency answers from the stored row. */
export class KeyTaken extends Error {}

/**
 * A key for the handler to claim inside its own transaction (the create's first statement,
 * verifications/create-open.sql.ts, with IDEMPOTENCY_CLAIM), so the claim, the writes and the
 * stored answer commit together or not at all.
 */
export interface IdempotencyClaim {
  /** Advisory lock key: holders of the key are told IN_USE at once instead of queueing. */
  lockKey: string;
  apiKeyId: string;
  key: string;
  requestHash: string;
  expiresAt: Date;
  /** The claimed row's answer: `status` and the sealed `body`. */
  answer(status: number, body: unknown): AnswerSlot;
}

/**
 * The claim as a piece of a tenant-bound statement (tenantSql: `$1` account, `$2` environments;
 * `$3`-`$7` from claimParams), two CTEs: `key_lock` try-locks the key first, so a request
 * arriving while another holds it learns it at once instead of queueing; `claim` inserts the
 * in-flight row, or takes over an expired one, for an API key of the scope's account and
 * environment. `(select count(*) from claim)` is 1 when claimed, 0 when the key is taken
 * (throw KeyTaken). With no claim (`$3` null) it does nothing.
 */
export const IDEMPOTENCY_CLAIM = `key_lock as (
  select pg_try_advisory_xact_lock(hashtextextended($3::text, 0)) as got where $3::text is not null
), claim as (
  insert into idempotency_keys (api_key_id, key, request_hash, status, created_at, expires_at)
  select $4, $5, $6, 'in_flight', now(), $7 from key_lock
  where got and exists (select 1 from api_keys k where k.id = $4::uuid and k.merchant_id = $1 and k.mode = any($2::text[]))
  on conflict (api_key_id, key) do update set request_hash = excluded.request_hash, status = 'in_flight', response_status = null,
    response_body = null, created_at = excluded.created_at, expires_at = excluded.expires_at
  where idempotency_keys.expires_at <= now()
  returning key
)`;

/** The stored answer of an idempotent create, written by the same statement as what it answers. */
export interface AnswerSlot {
  apiKeyId: string;
  key: string;
  status: number;
  /** JSON of the sealed answer. */
  sealedBody: string;
}

/**
 * Storing the claimed key's answer as a piece of a tenant-bound statement (a CTE `answer`,
 * `$3`-`$6` from answerParams), in the transaction that claimed it; with no slot it updates nothing.
 */
export const IDEMPOTENCY_ANSWER = `answer as (
  update idempotency_keys set status = 'completed', response_status = $3, response_body = $4::jsonb
  where api_key_id = $5 and key = $6
)`;

/** IDEMPOTENCY_ANSWER's four parameters. */
export const answerParams = (a: AnswerSlot | null): unknown[] => [
  a?.status ?? null,
  a?.sealedBody ?? null,
  a?.apiKeyId ?? null,
  a?.key ?? null,
];

/** IDEMPOTENCY_CLAIM's five parameters. */
export const claimParams = (c: Omit<IdempotencyClaim, 'answer'> | null): unknown[] => [
  c?.lockKey ?? null,
  c?.apiKeyId ?? null,
  c?.key ?? null,
  c?.requestHash ?? null,
  c?.expiresAt ?? null,
];

/** Errors whose answer the handler already stored in its transaction (a refused create). */
const answered = new WeakSet<object>();
export const markAnswered = (error: object): void => void answered.add(error);

/**
 * Stores an error answer when the handler failed before claiming or rolled its claim back.
 * Nothing returned: the key is taken (used, or held by a request that has since finished),
 * and that stored answer is the one to give.
 */
const STORE_ERROR = `insert into idempotency_keys (api_key_id, key, request_hash, status, response_status, response_body, created_at, expires_at)
  select $3, $4, $5, 'completed', $6, $7::jsonb, now(), $8
  where exists (select 1 from api_keys k where k.id = $3::uuid and k.merchant_id = $1 and k.mode = any($2::text[]))
  on conflict (api_key_id, key) do update set request_hash = excluded.request_hash, status = 'completed', response_status = excluded.response_status,
    response_body = excluded.response_body, created_at = excluded.created_at, expires_at = excluded.expires_at
  where idempotency_keys.expires_at <= now()
  returning key`;

const sealedJson = (ctx: ServiceContext, body: unknown) => JSON.stringify({ sealed: ctx.runtime.vault.encrypt(body) });

/** The answer to a key someone else claimed: replay it, or refuse. */
async function answerForTakenKey(
  ctx: ServiceContext,
  apiKeyId: string,
  key: string,
  hash: string,
  body: unknown,
): Promise<StoredResponse> {
  const existing = await systemFork(ctx.runtime.orm).findOne(IdempotencyKey, { apiKeyId, key });
  if (!existing)
    throw idempotencyError(
      'IDEMPOTENCY_KEY_IN_USE',
      'A request with this Idempotency-Key is still being processed; retry shortly.',
    );
  if (!sameRequest(existing.requestHash, hash, body)) {
    throw idempotencyError(
      'IDEMPOTENCY_KEY_REUSED',
      'This Idempotency-Key was already used with a different request body.',
    );
  }
  if (existing.status !== 'completed') {
    throw idempotencyError(
      'IDEMPOTENCY_KEY_IN_USE',
      'A request with this Idempotency-Key is still being processed; retry shortly.',
    );
  }
  return { status: existing.responseStatus ?? 200, body: unseal(ctx, existing.responseBody), replayed: true };
}

/**
 * Idempotency-Key for creates (decisions.md): 24 hours, scoped to the API key. The handler
 * claims the key in its transaction and stores its answer there; a repeat with the same body
 * replays the stored answer, a different body is 409 IDEMPOTENCY_KEY_REUSED, and one arriving
 * while the first still runs is 409 IDEMPOTENCY_KEY_IN_USE. Client errors are stored too;
 * server failures roll the claim back, so a retry runs again.
 */
export async function withIdempotency(
  ctx: ServiceContext,
  key: string | undefined,
  body: unknown,
  handler: (claim: IdempotencyClaim | null) => Promise<{ status: number; body: unknown }>,
): Promise<StoredResponse> {
  if (key === undefined || ctx.caller.kind !== 'key') return { ...(await handler(null)), replayed: false };
  if (key.length === 0 || key.length > 255)
    throw parameterInvalid('Idempotency-Key', 'Idempotency-Key must be 1 to 255 characters.');
  const apiKeyId = ctx.caller.keyId;
  const hash = requestHash(ctx.runtime.vault, body);
  const expiresAt = new Date(Date.now() + TTL_MS);
  const claim: IdempotencyClaim = {
    lockKey: `idempotency:${apiKeyId}:${key}`,
    apiKeyId,
    key,
    requestHash: hash,
    expiresAt,
    answer: (status, answerBody) => ({ apiKeyId, key, status, sealedBody: sealedJson(ctx, answerBody) }),
  };
  try {
    return { ...(await handler(claim)), replayed: false };
  } catch (error) {
    if (error instanceof KeyTaken) return answerForTakenKey(ctx, apiKeyId, key, hash, body);
    if (error instanceof ApiError && error.status < 500 && !answered.has(error)) {
      const stored = await tenantSql(ctx).query(STORE_ERROR, [
        apiKeyId,
        key,
        hash,
        error.status,
        sealedJson(ctx, { error: error.toEnvelope(ctx.requestId) }),
        expiresAt,
      ]);
      if (stored.length === 0) return answerForTakenKey(ctx, apiKeyId, key, hash, body);
    }
    throw error;
  }
}
