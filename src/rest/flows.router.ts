import Router from '@koa/router';

/** Stub, owned by helper A (flows). */
export function flowsRouter(): Router {
  return new Router();
}
