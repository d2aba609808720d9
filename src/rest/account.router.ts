import Router from '@koa/router';
import { getEntitlements, getMerchant } from '../services/access/index.js';
import { requirePermission, svc } from '../http/auth.js';
import { presentEntitlements, presentMerchant } from './presenters.js';

/** /v1/merchant and /v1/entitlements. */
export function accountRouter(): Router {
  const router = new Router();
  router.get('/v1/merchant', requirePermission('settings:read'), async (ctx) => {
    ctx.body = presentMerchant(await getMerchant(svc(ctx)));
  });
  router.get('/v1/entitlements', requirePermission('settings:read'), async (ctx) => {
    ctx.body = presentEntitlements(await getEntitlements(svc(ctx)));
  });
  return router;
}
