import Router from '@koa/router';
import type { Context } from 'koa';
import { requirePermission, svc } from '../http/auth.js';
import { exportUsage, exportVerifications, type CsvExport } from '../services/logs/index.js';
import { exportUsageBody, exportVerificationsBody } from './console-logs.schema.js';
import { parseInput } from './validate.js';

/** A streamed CSV answer with the spec's X-Rows and X-Truncated headers. */
function sendCsv(ctx: Context, csv: CsvExport): void {
  ctx.status = 200;
  ctx.type = 'text/csv; charset=utf-8';
  ctx.set('Content-Disposition', `attachment; filename="${csv.filename}"`);
  ctx.set('X-Rows', String(csv.rows));
  ctx.set('X-Truncated', String(csv.truncated));
  ctx.set('Cache-Control', 'no-store');
  ctx.body = csv.stream;
}

/** /v1/console/exports: verifications (verifications.export) and usage (usage.export) as CSV, at most 5,000 rows. */
export function consoleExportsRouter(): Router {
  const router = new Router();

  router.post('/v1/console/exports/verifications', requirePermission('verifications.export'), async (ctx) => {
    const body = parseInput(exportVerificationsBody, ctx.request.body ?? {});
    const csv = await exportVerifications(svc(ctx), {
      since: body.since ? new Date(body.since) : undefined,
      includeIdentity: body.include_identity ?? false,
      mode: body.mode,
    });
    sendCsv(ctx, csv);
  });

  router.post('/v1/console/exports/usage', requirePermission('usage.export'), async (ctx) => {
    const body = parseInput(exportUsageBody, ctx.request.body ?? {});
    sendCsv(
      ctx,
      await exportUsage(svc(ctx), { since: body.since ? new Date(body.since) : undefined, mode: body.mode }),
    );
  });

  return router;
}
