import Router from '@koa/router';
import { requirePermission, svc } from '../http/auth.js';
import {
  getDeliveryLog,
  listDeliveryLog,
  listRequestLogs,
  replayDelivery,
  type DeliveryDetail,
  type DeliveryLogRow,
  type RequestLogRow,
} from '../services/logs/index.js';
import { listDeliveryLogQuery, listRequestLogsQuery, replayBody } from './console-logs.schema.js';
import type { DeliveryLogOut, RequestLogOut } from '../contracts/index.js';
import { presentList } from './presenters.js';
import { pageParams, parseInput } from './validate.js';

export const presentRequestLog = (row: RequestLogRow): RequestLogOut => ({
  id: row.id,
  object: 'request_log',
  mode: row.mode,
  api_key_id: row.apiKeyId,
  key_name: row.keyName,
  method: row.method,
  route: row.route,
  status: row.status,
  duration_ms: row.durationMs,
  request_id: row.requestId,
  ip: row.ip,
  created_at: row.createdAt.toISOString(),
});

/** A delivery of the console's log; `body` appears only when the service included it (never as null). */
export const presentDeliveryLog = (row: DeliveryLogRow | DeliveryDetail): DeliveryLogOut => ({
  id: row.id,
  object: 'webhook_delivery',
  mode: row.mode,
  endpoint_id: row.endpointId,
  event: row.event,
  event_id: row.eventId,
  test: row.test,
  status: row.status,
  attempt_count: row.attemptCount,
  response_code: row.responseCode,
  error: row.error,
  attempts: row.attempts,
  next_attempt_at: row.nextAttemptAt?.toISOString() ?? null,
  delivered_at: row.deliveredAt?.toISOString() ?? null,
  created_at: row.createdAt.toISOString(),
  // The exact JSON object that was sent (parsed back from the stored bytes).
  ...('body' in row ? { body: row.body as Record<string, unknown> } : {}),
});

/** /v1/console/logs: the request log of the account's keys and the webhook delivery log (logs.read). */
export function consoleLogsRouter(): Router {
  const router = new Router();
  const logsRead = requirePermission('logs.read');

  router.get('/v1/console/logs/requests', logsRead, async (ctx) => {
    const q = parseInput(listRequestLogsQuery, ctx.query);
    const filter = {
      apiKeyId: q.key,
      statusClass: q.status ? Number(q.status[0]) : undefined,
      route: q.route,
      since: q.since ? new Date(q.since) : undefined,
      until: q.until ? new Date(q.until) : undefined,
      mode: q.mode,
    };
    ctx.body = presentList(await listRequestLogs(svc(ctx), filter, pageParams(q)), presentRequestLog);
  });

  router.get('/v1/console/logs/deliveries', logsRead, async (ctx) => {
    const q = parseInput(listDeliveryLogQuery, ctx.query);
    ctx.body = presentList(
      await listDeliveryLog(svc(ctx), { status: q.status, event: q.event }, pageParams(q)),
      presentDeliveryLog,
    );
  });

  router.get('/v1/console/logs/deliveries/:id', logsRead, async (ctx) => {
    ctx.body = presentDeliveryLog(await getDeliveryLog(svc(ctx), ctx.params.id));
  });

  router.post('/v1/console/logs/deliveries/:id/replay', logsRead, async (ctx) => {
    parseInput(replayBody, ctx.request.body ?? {});
    ctx.status = 202;
    ctx.body = presentDeliveryLog(await replayDelivery(svc(ctx), ctx.params.id));
  });

  return router;
}
