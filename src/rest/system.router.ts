import Router from '@koa/router';

/** GET /healthz: no authentication, no database round trip. */
export function systemRouter(): Router {
  const router = new Router();
  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok', service: 'idv-platform', time: new Date().toISOString() };
  });
  return router;
}
