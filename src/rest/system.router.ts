import type { Context, Next } from 'koa';

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * GET /healthz: no authentication, no database round trip. A plain path check rather than a
 * @koa/router instance: the load balancer calls it constantly and a one-route router's
 * matching and dispatch would cost more than the answer.
 *
 * The request still goes through Koa and the edge middleware (request id, error envelope);
 * only the answer, a constant-shape JSON object, is written with Koa's documented raw-response
 * switch (`ctx.respond = false`) instead of its responder. The responder's type lookup, header
 * bookkeeping and body branches cost about a fifth of this endpoint: measured interleaved
 * against bare node:http, 0.55-0.59 through the responder and 0.64-0.72 written directly
 * (README, Benchmarks). Headers set before this point (X-Request-Id) are kept: writeHead merges
 * them. For HEAD, node:http sends the headers and drops the body.
 */
export function systemRoutes() {
  return (ctx: Context, next: Next) => {
    // Other methods fall through to the 404 envelope, as they did under the router.
    if (ctx.path !== '/healthz' || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return next();
    const body = JSON.stringify({ status: 'ok', service: 'idv-platform', time: new Date().toISOString() });
    ctx.respond = false;
    ctx.status = 200;
    ctx.res.writeHead(200, { 'content-type': JSON_TYPE, 'content-length': Buffer.byteLength(body) });
    ctx.res.end(body);
    return Promise.resolve();
  };
}
