import Router from '@koa/router';

/** Stub, owned by helper C (applicants). */
export function applicantsRouter(): Router {
  return new Router();
}
