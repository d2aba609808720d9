import Router from '@koa/router';

/** Stub, owned by the lookup helper: POST /v1/verifications/lookup. */
export function lookupRouter(): Router {
  return new Router();
}
