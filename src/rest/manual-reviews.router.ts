import Router from '@koa/router';
import { notFound } from '../errors.js';
import { decideManualReview, listManualReviews } from '../services/review/index.js';
import { requirePermission, svc } from '../http/auth.js';
import { presentManualReview } from './manual-review.presenter.js';
import { decisionBody, listManualReviewsQuery } from './manual-reviews.schema.js';
import { presentList } from './presenters.js';
import { pageParams, parseInput, UUID_RE } from './validate.js';

/** /v1/manual-reviews: the review queue and the key-authenticated decision. */
export function manualReviewsRouter(): Router {
  const router = new Router();

  router.get('/v1/manual-reviews', requirePermission('verification:read'), async (ctx) => {
    const query = parseInput(listManualReviewsQuery, ctx.query);
    ctx.body = presentList(await listManualReviews(svc(ctx), pageParams(query), query.status), presentManualReview);
  });

  router.post('/v1/manual-reviews/:id/decision', requirePermission('verification:create'), async (ctx) => {
    if (!UUID_RE.test(ctx.params.id)) throw notFound('manual_review', ctx.params.id);
    const body = parseInput(decisionBody, ctx.request.body);
    ctx.body = presentManualReview(await decideManualReview(svc(ctx), ctx.params.id, body));
  });

  return router;
}
