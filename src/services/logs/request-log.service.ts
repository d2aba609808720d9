import type { Mode } from '../../config.js';
import { ApiError, fromDatabaseError } from '../../errors.js';
import type { Runtime } from '../../runtime.js';
import {
  asDate,
  tenantSql,
  withConnection,
  type KeyCaller,
  type Page,
  type PageParams,
  type ServiceContext,
} from '../shared/index.js';
import { maskRoute, truncateIp } from './request-log.mask.js';
import { requestLogOf, requestLogPosition, type RequestLogEntry } from './request-log.writer.js';

/** decisions.md: request logs are kept 30 days. */
export const REQUEST_LOG_RETENTION_DAYS = 30;

/** What the HTTP edge knows about one key call when it ends. */
export interface KeyCall {
  merchantId: string;
  caller: KeyCaller;
  method: string;
  path: string;
  querystring: string;
  status: number;
  durationMs: number;
  requestId: string;
  remoteAddress: string | undefined;
}

/**
 * The masked route and truncated address of recent calls: an integration calls the same few
 * routes from the same few addresses, so each is worked out once, not on every request.
 * Bounded; emptied when full.
 */
function memo<T>(limit: number, compute: (key: string) => T): (key: string) => T {
  const cache = new Map<string, T>();
  return (key) => {
    let value = cache.get(key);
    if (value === undefined) {
      if (cache.size >= limit) cache.clear();
      value = compute(key);
      cache.set(key, value);
    }
    return value;
  };
}
const maskedRoute = memo(2_000, (url) => {
  const q = url.indexOf('?');
  return q < 0 ? maskRoute(url, '') : maskRoute(url.slice(0, q), url.slice(q + 1));
});
const truncatedIp = memo(1_000, (address) => truncateIp(address) ?? '');

/** Hands one key call to the batched writer (never awaits the database). */
export function recordKeyCall(runtime: Runtime, call: KeyCall): void {
  const writer = requestLogOf(runtime);
  if (!writer) return;
  writer.push({
    merchantId: call.merchantId,
    mode: call.caller.mode,
    apiKeyId: call.caller.keyId,
    keyName: call.caller.name,
    method: call.method,
    route: maskedRoute(call.querystring ? `${call.path}?${call.querystring}` : call.path),
    status: call.status,
    durationMs: Math.round(call.durationMs * 100) / 100,
    requestId: call.requestId,
    ip: call.remoteAddress ? truncatedIp(call.remoteAddress) || null : null,
    createdAt: new Date(),
  });
}

/** The status a failed call will be answered with (the edge renders the error after us). */
export function statusOfError(error: unknown): number {
  if (error instanceof ApiError) return error.status;
  const mapped = fromDatabaseError(error);
  if (mapped) return mapped.status;
  const status = (error as { status?: number }).status;
  return status === 405 ? 405 : 500;
}

/** A stored request-log line as the console reads it: the entry without its account, with its id. */
export type RequestLogRow = Omit<RequestLogEntry, 'merchantId'> & { id: string };

export interface RequestLogFilter {
  /** An API key id (UUID). */
  apiKeyId?: string;
  /** 2, 4 or 5 for 2xx, 4xx, 5xx. */
  statusClass?: number;
  /** A route prefix, `/v1/verifications`. */
  route?: string;
  since?: Date;
  until?: Date;
  mode?: Mode;
}

const likePrefix = (prefix: string): string => `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * The account's key calls in the seat's environments, newest first, filtered, cursor-paginated.
 * The log is indexed per key (its writes pay for one btree), so the account's page is the merge
 * of each of its keys' newest matching rows: one short index range per key, whatever the volume.
 * The cursor is a position, not a lookup (request-log ids carry their time).
 */
export async function listRequestLogs(
  ctx: ServiceContext,
  filter: RequestLogFilter,
  params: PageParams,
): Promise<Page<RequestLogRow>> {
  const modes = filter.mode ? ctx.modes.filter((m) => m === filter.mode) : ctx.modes;
  if (modes.length === 0) return { data: [], hasMore: false, nextCursor: null };
  const after = params.startingAfter ? requestLogPosition(params.startingAfter) : undefined;
  if (params.startingAfter && !after) return { data: [], hasMore: false, nextCursor: null };
  const rows = await tenantSql({ ...ctx, modes }).query<Record<string, unknown>>(
    `select r.id, r.mode, r.api_key_id, r.key_name, r.method, r.route, r.status, r.duration_ms, r.request_id, r.ip, r.created_at
       from api_keys k
       cross join lateral (
         select r.id, r.mode, r.api_key_id, r.key_name, r.method, r.route, r.status, r.duration_ms, r.request_id, r.ip, r.created_at
           from request_logs r
          where r.api_key_id = k.id and r.merchant_id = $1
            and ($4::int is null or (r.status >= $4 * 100 and r.status < $4 * 100 + 100))
            and ($5::text is null or r.route like $5)
            and ($6::timestamptz is null or r.created_at >= $6)
            and ($7::timestamptz is null or r.created_at < $7)
            and ($8::timestamptz is null or (r.created_at, r.id) < ($8, $9::text))
          order by r.created_at desc, r.id desc
          limit $10) r
      where k.merchant_id = $1 and k.mode = any($2::text[]) and ($3::uuid is null or k.id = $3)
      order by r.created_at desc, r.id desc
      limit $10`,
    [
      filter.apiKeyId ?? null,
      filter.statusClass ?? null,
      filter.route ? likePrefix(filter.route) : null,
      filter.since?.toISOString() ?? null,
      filter.until?.toISOString() ?? null,
      after?.at.toISOString() ?? null,
      after?.id ?? null,
      params.limit + 1,
    ],
  );
  const hasMore = rows.length > params.limit;
  const data = (hasMore ? rows.slice(0, params.limit) : rows).map((r): RequestLogRow => ({
    id: r.id as string,
    mode: r.mode as Mode,
    apiKeyId: r.api_key_id as string,
    keyName: r.key_name as string,
    method: r.method as string,
    route: r.route as string,
    status: Number(r.status),
    durationMs: Number(r.duration_ms),
    requestId: r.request_id as string,
    ip: (r.ip as string | null) ?? null,
    createdAt: asDate(r.created_at as string),
  }));
  return { data, hasMore, nextCursor: hasMore ? data[data.length - 1]!.id : null };
}

/**
 * Deletes request-log rows older than 30 days in bounded batches (the daily retention job);
 * across accounts by design. Returns how many went.
 */
export async function purgeRequestLogs(
  runtime: Runtime,
  options: { batchSize?: number; maxBatches?: number } = {},
): Promise<number> {
  const batchSize = options.batchSize ?? 5_000;
  const maxBatches = options.maxBatches ?? 200;
  let deleted = 0;
  for (let batch = 0; batch < maxBatches; batch++) {
    const rows = await withConnection(runtime.orm, (sql) =>
      sql.query(
        // By physical row: the log has no index on id; the BRIN index on created_at finds the oldest pages.
        `delete from request_logs where ctid = any(array(select ctid from request_logs where created_at < now() - make_interval(days => $1) limit $2)) returning 1`,
        [REQUEST_LOG_RETENTION_DAYS, batchSize],
      ),
    );
    deleted += rows.length;
    if (rows.length < batchSize) break;
  }
  return deleted;
}
