import Router from '@koa/router';

/** Stub, owned by helper B (uploads). */
export function uploadsRouter(): Router {
  return new Router();
}
