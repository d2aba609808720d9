import type { Context, Next } from 'koa';

/**
 * GET /healthz: no authentication, no database round trip. A plain path check rather than a
 * @koa/router instance: the load balancer calls it constantly and a one-route router's
 * matching and dispatch would cost more than the answer.
 */
export function systemRoutes() {
  return (ctx: Context, next: Next) => {
    // Other methods fall through to the 404 envelope, as they did under the router.
    if (ctx.path !== '/healthz' || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return next();
    ctx.body = { status: 'ok', service: 'idv-platform', time: new Date().toISOString() };
    return Promise.resolve();
  };
}
