import Router from '@koa/router';

/** Stub, owned by helper C (tags). */
export function tagsRouter(): Router {
  return new Router();
}
