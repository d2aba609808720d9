import Router from '@koa/router';

/** Stub, owned by verifications. */
export function verificationsRouter(): Router {
  return new Router();
}
