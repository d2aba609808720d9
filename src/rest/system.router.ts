import type { Context, Next } from 'koa';

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * GET /healthz: no authentication, no database round trip. A plain path check rather than a
 * @koa/router instance: the load balancer calls it constantly and a one-route router's
 * matching and dispatch would cost more than the answer. The body is set as a string with its
 * type already set, so Koa's responder skips its MIME lookup and its JSON branch; the answer
 * still goes out through Koa's responder like every other route's (README, Benchmarks).
 */
export function systemRoutes() {
  return (ctx: Context, next: Next) => {
    // Other methods fall through to the 404 envelope, as they did under the router.
    if (ctx.path !== '/healthz' || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return next();
    ctx.set('Content-Type', JSON_TYPE);
    ctx.body = JSON.stringify({ status: 'ok', service: 'idv-platform', time: new Date().toISOString() });
    return Promise.resolve();
  };
}
