import Router from '@koa/router';

/** Stub, owned by the manual-review helper: GET /v1/manual-reviews, POST /v1/manual-reviews/{id}/decision. */
export function manualReviewsRouter(): Router {
  return new Router();
}
