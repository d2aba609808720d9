import type { Mode } from '../../config.js';
import type { DeliveryAttempt, WebhookDeliveryStatus } from '../../entities/webhook-delivery.entity.js';
import { conflict, notFound } from '../../errors.js';
import { recordActivity, recordAudit } from '../audit/index.js';
import { asDate, tenantSql, type Page, type PageParams, type ServiceContext } from '../shared/index.js';
import { queueDeliveries } from '../webhooks/index.js';

/** One webhook delivery as the console's delivery log shows it (every endpoint of the account). */
export interface DeliveryLogRow {
  id: string;
  mode: Mode;
  endpointId: string;
  eventId: string;
  event: string;
  test: boolean;
  status: WebhookDeliveryStatus;
  attemptCount: number;
  attempts: DeliveryAttempt[];
  /** The status code of the last attempt that got an answer; null when none did. */
  responseCode: number | null;
  error: string | null;
  nextAttemptAt: Date | null;
  deliveredAt: Date | null;
  createdAt: Date;
}

/** The detail adds the exact body sent, only for a seat holding verifications.reveal. */
export interface DeliveryDetail extends DeliveryLogRow {
  body?: unknown;
}

export interface DeliveryLogFilter {
  status?: WebhookDeliveryStatus;
  event?: string;
}

const COLUMNS = `d.id, d.mode, d.endpoint_id, d.event_id, d.event_type, d.test, d.status, d.attempt_count, d.attempts, d.next_attempt_at, d.delivered_at, d.last_error, d.created_at`;

function rowOf(r: Record<string, unknown>): DeliveryLogRow {
  const attempts = (r.attempts as DeliveryAttempt[] | null) ?? [];
  const answered = [...attempts].reverse().find((a) => a.status_code !== null);
  const status = r.status as WebhookDeliveryStatus;
  return {
    id: r.id as string,
    mode: r.mode as Mode,
    endpointId: r.endpoint_id as string,
    eventId: r.event_id as string,
    event: r.event_type as string,
    test: r.test as boolean,
    status,
    attemptCount: Number(r.attempt_count),
    attempts,
    responseCode: answered?.status_code ?? null,
    error: (r.last_error as string | null) ?? null,
    nextAttemptAt: status === 'pending' && r.next_attempt_at ? asDate(r.next_attempt_at as string) : null,
    deliveredAt: r.delivered_at ? asDate(r.delivered_at as string) : null,
    createdAt: asDate(r.created_at as string),
  };
}

/** Webhook deliveries of the account in the seat's environments, newest first, by status and event. */
export async function listDeliveryLog(
  ctx: ServiceContext,
  filter: DeliveryLogFilter,
  params: PageParams,
): Promise<Page<DeliveryLogRow>> {
  const rows = await tenantSql(ctx).query<Record<string, unknown>>(
    `select ${COLUMNS} from webhook_deliveries d
      where d.merchant_id = $1 and d.mode = any($2::text[])
        and ($3::text is null or d.status = $3)
        and ($4::text is null or d.event_type = $4)
        and ($5::text is null or (d.created_at, d.id) < (select c.created_at, c.id from webhook_deliveries c where c.id = $5 and c.merchant_id = $1))
      order by d.created_at desc, d.id desc
      limit $6`,
    [filter.status ?? null, filter.event ?? null, params.startingAfter ?? null, params.limit + 1],
  );
  const hasMore = rows.length > params.limit;
  const data = (hasMore ? rows.slice(0, params.limit) : rows).map(rowOf);
  return { data, hasMore, nextCursor: hasMore ? data[data.length - 1]!.id : null };
}

const canReveal = (ctx: ServiceContext): boolean =>
  ctx.caller.kind === 'member' && ctx.caller.permissions.includes('verifications.reveal');

/** The verification a body is about (an id, never a value); test events carry placeholders only. */
function verificationOf(body: unknown, test: boolean): string | undefined {
  if (test) return undefined;
  const id = (body as { data?: { verification?: { id?: unknown } } } | null)?.data?.verification?.id;
  return typeof id === 'string' && /^vs_[0-9A-Za-z]+$/.test(id) ? id : undefined;
}

/**
 * One delivery with its attempts. The body is included, and its viewing audited, only for a
 * seat holding verifications.reveal; without it the body is left out entirely (absent, not null).
 */
export async function getDeliveryLog(ctx: ServiceContext, id: string): Promise<DeliveryDetail> {
  const reveal = canReveal(ctx);
  const [row] = await tenantSql(ctx).query<Record<string, unknown>>(
    `select ${COLUMNS}${reveal ? ', d.body' : ''} from webhook_deliveries d where d.merchant_id = $1 and d.mode = any($2::text[]) and d.id = $3`,
    [id],
  );
  if (!row) throw notFound('webhook_delivery', id);
  const detail: DeliveryDetail = rowOf(row);
  if (!reveal) return detail;
  const body = JSON.parse(row.body as string) as unknown;
  await recordAudit(ctx, {
    action: 'delivery.body_viewed',
    mode: detail.mode,
    verificationId: verificationOf(body, detail.test),
  });
  return { ...detail, body };
}

/**
 * Re-arms a delivery for the worker on the normal retry ladder (attempts counted afresh, the
 * earlier attempts kept in its log). Refused while an attempt is in flight, and for an
 * endpoint that is deleted or disabled (deliveries to it have stopped).
 */
export async function replayDelivery(ctx: ServiceContext, id: string): Promise<DeliveryLogRow> {
  const [updated] = await tenantSql(ctx).query<Record<string, unknown>>(
    `update webhook_deliveries d
        set status = 'pending', attempt_count = 0, deferred_seconds = 0, next_attempt_at = now(), lease_until = null,
            claim_token = null, last_error = null, delivered_at = null, updated_at = now()
      where d.merchant_id = $1 and d.mode = any($2::text[]) and d.id = $3
        and (d.lease_until is null or d.lease_until < now())
        and exists (select 1 from webhook_endpoints e where e.id = d.endpoint_id and e.merchant_id = $1 and e.status = 'active' and e.deleted_at is null)
      returning ${COLUMNS}`,
    [id],
  );
  if (!updated) throw await whyNotReplayable(ctx, id);
  const row = rowOf(updated);
  await queueDeliveries(ctx.runtime, [row.id]);
  await recordActivity(ctx, {
    action: 'delivery.replayed',
    mode: row.mode,
    targetType: 'webhook_delivery',
    targetId: row.id,
  });
  return row;
}

async function whyNotReplayable(ctx: ServiceContext, id: string): Promise<Error> {
  const [state] = await tenantSql(ctx).query<{
    endpoint_id: string;
    endpoint_status: string | null;
    deleted_at: unknown;
    leased: boolean;
  }>(
    `select d.endpoint_id, e.status as endpoint_status, e.deleted_at, (d.lease_until is not null and d.lease_until >= now()) as leased
       from webhook_deliveries d left join webhook_endpoints e on e.id = d.endpoint_id
      where d.merchant_id = $1 and d.mode = any($2::text[]) and d.id = $3`,
    [id],
  );
  if (!state) return notFound('webhook_delivery', id);
  if (state.endpoint_status === null || state.deleted_at) {
    return conflict(
      'WEBHOOK_ENDPOINT_DELETED',
      `Webhook endpoint ${state.endpoint_id} was deleted; its deliveries cannot be replayed.`,
      { param: 'id' },
    );
  }
  if (state.endpoint_status !== 'active') {
    return conflict(
      'WEBHOOK_ENDPOINT_DISABLED',
      `Webhook endpoint ${state.endpoint_id} is disabled; enable it (PATCH /v1/webhooks/{id} with status active) before replaying.`,
      { param: 'id' },
    );
  }
  return conflict(
    'DELIVERY_IN_FLIGHT',
    `Delivery ${id} has an attempt in flight; replay it once that attempt has finished.`,
    { param: 'id' },
  );
}
