import Router from '@koa/router';

/** Stub, owned by helper C (usage). */
export function usageRouter(): Router {
  return new Router();
}
