import type { EntityManager } from '@mikro-orm/postgresql';
import type { Mode } from '../../config.js';
import { sha256Hex } from '../../crypto.js';
import type { KeyAccess } from '../../entities/api-key.entity.js';
import { authenticationError, rateLimited } from '../../errors.js';
import { SECRET_KEY_PATTERN } from './api-key.service.js';
import { rawSqlOf, type KeyCaller, type MemberCaller, asDate, withConnection } from '../shared/index.js';

export const SESSION_TOKEN_PATTERN = /^mst_[0-9A-Za-z]{40}$/;

export interface RateLimitState {
  limit: number;
  remaining: number;
  /** Seconds until the bucket is full again. */
  resetSeconds: number;
  /** Seconds until the refused call could pass; set when refused. */
  retryAfterSeconds?: number;
}

export interface AuthenticatedKey {
  caller: KeyCaller;
  merchantId: string;
  rateLimit: RateLimitState;
}

interface KeyRow {
  id: string;
  merchant_id: string;
  mode: Mode;
  name: string;
  permissions: string[];
  access: KeyAccess;
  status: string;
  expires_at: Date | null;
  allowed: boolean;
  tokens: number;
  granted: number;
}

interface CachedKey {
  caller: KeyCaller;
  merchantId: string;
  expiresAt: number | null;
  fetchedAt: number;
  /** Tokens this process reserved from the shared bucket and has not spent yet. */
  localTokens: number;
  /** The shared bucket's level when last read. */
  bucketTokens: number;
}

/**
 * A process-local view of recently used keys: the key row for at most `maxAgeMs`, and
 * tokens reserved from the shared PostgreSQL bucket in chunks of 1% of the budget. At the
 * default budget (100/minute) the chunk is one token, so every call goes to the database;
 * at high budgets most calls are answered here. Reserved tokens are never dropped: a stale
 * entry's unspent tokens are carried into its refresh, and reservations made by concurrent
 * misses are added together, so a key is never refused while its budget is unspent.
 * Revocation in this process invalidates at once; one made by another process takes effect
 * within `maxAgeMs`.
 */
export class KeyCache {
  private readonly entries = new Map<string, CachedKey>();
  /** Unspent reserved tokens of entries that went stale, waiting for their refresh. */
  private readonly leftovers = new Map<string, number>();

  constructor(readonly maxAgeMs = 1000) {}

  get(hash: string): CachedKey | undefined {
    const entry = this.entries.get(hash);
    if (entry && Date.now() - entry.fetchedAt >= this.maxAgeMs) {
      this.entries.delete(hash);
      if (entry.localTokens > 0) this.leftovers.set(hash, (this.leftovers.get(hash) ?? 0) + entry.localTokens);
      return undefined;
    }
    return entry;
  }

  /** Takes the reserved tokens a refresh inherits (0 when none). */
  takeLeftover(hash: string): number {
    const tokens = this.leftovers.get(hash) ?? 0;
    this.leftovers.delete(hash);
    return tokens;
  }

  /** Gives reserved tokens back for the next refresh (a refused call must not lose them). */
  returnLeftover(hash: string, tokens: number): void {
    if (tokens > 0) this.leftovers.set(hash, (this.leftovers.get(hash) ?? 0) + tokens);
  }

  /** Stores a fresh entry; tokens another concurrent refresh reserved meanwhile are kept. */
  put(hash: string, entry: CachedKey): void {
    if (this.entries.size > 10_000) this.entries.clear();
    const concurrent = this.entries.get(hash);
    if (concurrent) entry.localTokens += concurrent.localTokens;
    this.entries.set(hash, entry);
  }

  private readonly refreshing = new Map<string, Promise<unknown>>();

  /** The refresh of this key already in flight in this process, if any. */
  refreshOf(hash: string): Promise<unknown> | undefined {
    return this.refreshing.get(hash);
  }

  /** Marks a refresh in flight so concurrent misses wait for it instead of each reserving a chunk. */
  trackRefresh<T>(hash: string, refresh: Promise<T>): Promise<T> {
    this.refreshing.set(hash, refresh);
    const clear = () => {
      if (this.refreshing.get(hash) === refresh) this.refreshing.delete(hash);
    };
    refresh.then(clear, clear);
    return refresh;
  }

  /** Spends `cost` of a fresh entry's reserved tokens; the entry when it could. */
  spend(hash: string, cost: number): CachedKey | undefined {
    const entry = this.get(hash);
    if (!entry || entry.localTokens < cost || (entry.expiresAt !== null && entry.expiresAt <= Date.now()))
      return undefined;
    entry.localTokens -= cost;
    return entry;
  }

  invalidateKey(keyId: string): void {
    for (const [hash, entry] of this.entries) {
      if (entry.caller.keyId === keyId) {
        this.entries.delete(hash);
        this.leftovers.delete(hash);
      }
    }
  }
}

/** Reads the bearer token of an Authorization header; undefined when absent or not Bearer. */
export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

const reserveFor = (capacity: number): number => Math.max(0, Math.floor(capacity / 100) - 1);

function rateState(capacity: number, tokens: number): RateLimitState {
  return {
    limit: capacity,
    remaining: Math.max(0, Math.floor(tokens)),
    resetSeconds: Math.max(0, Math.ceil((capacity - tokens) / (capacity / 60))),
  };
}

/**
 * Authenticates a secret key by its SHA-256 and spends `cost` tokens of its per-minute
 * budget: from this process's reservation when it has one, else in one database round trip
 * (idv_authenticate_key_reserve), which also refreshes the key row. Throws 401 or 429.
 */
export async function authenticateKey(
  em: EntityManager,
  token: string | undefined,
  cost: number,
  capacity: number,
  cache: KeyCache = new KeyCache(0),
): Promise<AuthenticatedKey> {
  if (!token)
    throw authenticationError('API_KEY_MISSING', 'No API key provided. Send it as "Authorization: Bearer <API_KEY>".');
  if (SESSION_TOKEN_PATTERN.test(token)) {
    throw authenticationError(
      'API_KEY_INVALID',
      'A team-member session token cannot call key-authenticated endpoints; use a secret API key.',
    );
  }
  if (!SECRET_KEY_PATTERN.test(token)) throw authenticationError('API_KEY_INVALID', 'Invalid API key provided.');
  const hash = sha256Hex(token);
  const fromCache = (entry: CachedKey): AuthenticatedKey => ({
    caller: entry.caller,
    merchantId: entry.merchantId,
    rateLimit: rateState(capacity, entry.bucketTokens + entry.localTokens),
  });
  const cached = cache.spend(hash, cost);
  if (cached) return fromCache(cached);
  const inFlight = reserveFor(capacity) > 0 ? cache.refreshOf(hash) : undefined;
  if (inFlight) {
    await inFlight.catch(() => undefined);
    const refreshed = cache.spend(hash, cost);
    if (refreshed) return fromCache(refreshed);
  }
  const refresh = refreshKey(em, hash, cost, capacity, cache);
  return reserveFor(capacity) > 0 ? cache.trackRefresh(hash, refresh) : refresh;
}

/** One database round trip: refresh the key row, spend `cost` (unless reserved tokens pay it) and top the reservation up. */
async function refreshKey(
  em: EntityManager,
  hash: string,
  cost: number,
  capacity: number,
  cache: KeyCache,
): Promise<AuthenticatedKey> {
  // Tokens reserved earlier and unspent pay for this call when they can; the database then only
  // refreshes the key row and tops the reservation up to one chunk.
  const leftover = cache.takeLeftover(hash);
  const paidLocally = leftover >= cost;
  const rows = (await rawSqlOf(em).query<KeyRow>('select * from idv_authenticate_key_reserve($1, $2, $3, $4)', [
    hash,
    paidLocally ? 0 : cost,
    capacity,
    Math.max(0, reserveFor(capacity) - leftover),
  ])) as KeyRow[];
  const row = rows[0];
  if (!row) throw authenticationError('API_KEY_INVALID', 'Invalid API key provided.');
  if (row.status !== 'active') throw authenticationError('API_KEY_REVOKED', 'This API key has been revoked.');
  const expiresAt = row.expires_at ? new Date(row.expires_at).getTime() : null;
  if (expiresAt !== null && expiresAt <= Date.now())
    throw authenticationError('API_KEY_EXPIRED', 'This API key has expired.');
  const caller: KeyCaller = {
    kind: 'key',
    keyId: row.id,
    name: row.name,
    mode: row.mode,
    permissions: row.permissions,
    access: row.access,
  };
  const bucketTokens = Number(row.tokens);
  const granted = row.allowed ? Number(row.granted) : 0;
  if (!paidLocally && !row.allowed) {
    cache.returnLeftover(hash, leftover);
    // A concurrent refresh may have reserved tokens meanwhile: they pay before refusing.
    const concurrent = cache.spend(hash, cost);
    if (concurrent)
      return {
        caller: concurrent.caller,
        merchantId: concurrent.merchantId,
        rateLimit: rateState(capacity, concurrent.bucketTokens + concurrent.localTokens),
      };
    const rateLimit = rateState(capacity, bucketTokens + leftover);
    rateLimit.retryAfterSeconds = Math.max(1, Math.ceil((cost - bucketTokens - leftover) / (capacity / 60)));
    const error = rateLimited(rateLimit.retryAfterSeconds);
    Object.assign(error, { rateLimit });
    throw error;
  }
  const localTokens = leftover + granted - cost;
  cache.put(hash, { caller, merchantId: row.merchant_id, expiresAt, fetchedAt: Date.now(), localTokens, bucketTokens });
  return { caller, merchantId: row.merchant_id, rateLimit: rateState(capacity, bucketTokens + localTokens) };
}

export interface AuthenticatedMember {
  caller: MemberCaller;
  merchantId: string;
}

interface SessionRow {
  session_id: string;
  merchant_id: string;
  member_id: string;
  expires_at: string | Date;
  revoked_at: string | Date | null;
  permissions: string[];
  environments: Mode[];
}

/**
 * Authenticates a console session token (hashed lookup); secret keys are refused here. One
 * prepared statement (session joined to its member) rather than an ORM read with populate:
 * every GraphQL and console request pays for it.
 */
export async function authenticateMember(em: EntityManager, token: string | undefined): Promise<AuthenticatedMember> {
  if (!token)
    throw authenticationError(
      'SESSION_MISSING',
      'No session token provided. Sign in with POST /v1/console/sessions and send "Authorization: Bearer <token>".',
    );
  if (SECRET_KEY_PATTERN.test(token)) {
    throw authenticationError(
      'SESSION_INVALID',
      'Secret API keys cannot call back-office endpoints; sign in as a team member.',
    );
  }
  if (!SESSION_TOKEN_PATTERN.test(token)) throw authenticationError('SESSION_INVALID', 'Invalid session token.');
  // Before the caller is known there is no tenant to bind: the token's hash finds it.
  const [session] = await withConnection(em, (sql) =>
    sql.query<SessionRow>(
      `select s.id as session_id, s.merchant_id, s.member_id, s.expires_at, s.revoked_at, m.permissions, m.environments
       from member_sessions s join members m on m.id = s.member_id and m.merchant_id = s.merchant_id and m.deactivated_at is null
      where s.token_hash = $1`,
      [sha256Hex(token)],
      'idv_member_session_by_hash',
    ),
  );
  if (!session || session.revoked_at)
    throw authenticationError('SESSION_INVALID', 'Invalid or signed-out session token.');
  if (asDate(session.expires_at).getTime() <= Date.now())
    throw authenticationError('SESSION_EXPIRED', 'This session has expired; sign in again.');
  return {
    merchantId: session.merchant_id,
    caller: {
      kind: 'member',
      memberId: session.member_id,
      sessionId: session.session_id,
      permissions: [...session.permissions],
      environments: [...session.environments],
    },
  };
}
