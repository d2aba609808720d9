import Router from '@koa/router';
import { usageSummary } from '../services/reporting/index.js';
import { requirePermission, svc } from '../http/auth.js';
import { presentUsage } from './tag.presenter.js';
import { usageQuery } from './tags.schema.js';
import { parseInput } from './validate.js';

/** GET /v1/usage: metering of the key's environment (analytics:read, granted per key only). */
export function usageRouter(): Router {
  const router = new Router();
  router.get('/v1/usage', requirePermission('analytics:read'), async (ctx) => {
    const query = parseInput(usageQuery, ctx.query);
    ctx.body = presentUsage(await usageSummary(svc(ctx), query.since ? new Date(query.since) : null));
  });
  return router;
}
