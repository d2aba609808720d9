import Router from '@koa/router';
import type { ManualReview } from '../entities/manual-review.entity.js';
import { svc } from '../http/auth.js';
import {
  assignReview,
  claimReview,
  clearPresence,
  escalateReview,
  returnEscalation,
  decideFromConsole,
  holds,
  listOpenReviews,
  markPresence,
  presenceOf,
  releaseReview,
  reviewPolicy,
  type Presence,
} from '../services/review/index.js';
import type { ServiceContext } from '../services/shared/index.js';
import { presentManualReview } from './manual-review.presenter.js';
import { iso, presentList } from './presenters.js';
import {
  assignmentBody,
  consoleDecisionBody,
  emptyBody,
  escalationBody,
  escalationReturnBody,
  listConsoleReviewsQuery,
} from './console-reviews.schema.js';
import type { ConsoleReviewOut, ReviewLockDeletedOut, ReviewLockOut, ReviewPolicyOut } from '../contracts/index.js';
import { pageParams, parseInput } from './validate.js';

/** A console review row: the key API's fields plus mode, the live claim and who is looking at it. */
export function presentConsoleReview(review: ManualReview, presence: Presence[]): ConsoleReviewOut {
  const live = !!review.claimedBy && holds(review, review.claimedBy);
  return {
    ...presentManualReview(review),
    mode: review.mode,
    claimed_by: live ? (review.claimedBy ?? null) : null,
    claim_expires_at: live ? iso(review.claimExpiresAt) : null,
    assigned_to: review.assignedTo ?? null,
    escalation: review.escalation ?? null,
    being_reviewed_by: presence.map((p) => ({ member_id: p.memberId, name: p.name, since: p.since.toISOString() })),
  };
}

async function presentOne(ctx: ServiceContext, review: ManualReview): Promise<ConsoleReviewOut> {
  return presentConsoleReview(review, (await presenceOf(ctx, [review.id])).get(review.id) ?? []);
}

/** /v1/console/reviews: the reviewer's queue, policy, claims, presence and decisions (member session). */
export function consoleReviewsRouter(): Router {
  const router = new Router();
  router.get('/v1/console/reviews', async (ctx) => {
    const query = parseInput(listConsoleReviewsQuery, ctx.query);
    const s = svc(ctx);
    const page = await listOpenReviews(s, pageParams(query), {
      holdingMine: query.holding === 'mine',
      environment: query.mode,
    });
    const presence = await presenceOf(
      s,
      page.data.map((r) => r.id),
    );
    ctx.body = presentList(page, (review) => presentConsoleReview(review, presence.get(review.id) ?? []));
  });
  router.get('/v1/console/reviews/policy', async (ctx) => {
    ctx.body = { object: 'review_policy', ...(await reviewPolicy(svc(ctx))) } satisfies ReviewPolicyOut;
  });
  router.post('/v1/console/reviews/:id/claim', async (ctx) => {
    parseInput(emptyBody, ctx.request.body);
    ctx.body = await presentOne(svc(ctx), await claimReview(svc(ctx), ctx.params.id));
  });
  router.delete('/v1/console/reviews/:id/claim', async (ctx) => {
    ctx.body = await presentOne(svc(ctx), await releaseReview(svc(ctx), ctx.params.id));
  });
  router.post('/v1/console/reviews/:id/decision', async (ctx) => {
    const body = parseInput(consoleDecisionBody, ctx.request.body);
    const { applicant_message: applicantMessage, ...decision } = body;
    ctx.body = await presentOne(
      svc(ctx),
      await decideFromConsole(svc(ctx), ctx.params.id, { ...decision, applicantMessage }),
    );
  });
  router.post('/v1/console/reviews/:id/escalation', async (ctx) => {
    const body = parseInput(escalationBody, ctx.request.body);
    ctx.body = await presentOne(svc(ctx), await escalateReview(svc(ctx), ctx.params.id, body));
  });
  router.post('/v1/console/reviews/:id/escalation/return', async (ctx) => {
    const body = parseInput(escalationReturnBody, ctx.request.body);
    const returned = await returnEscalation(svc(ctx), ctx.params.id, body.note);
    ctx.body = {
      ...(await presentOne(svc(ctx), returned.review)),
      raised_by_member_id: returned.raisedByMemberId,
    } satisfies ConsoleReviewOut;
  });
  router.put('/v1/console/reviews/:id/assignment', async (ctx) => {
    const body = parseInput(assignmentBody, ctx.request.body);
    ctx.body = await presentOne(svc(ctx), await assignReview(svc(ctx), ctx.params.id, body.member_id));
  });
  router.post('/v1/console/reviews/:id/lock', async (ctx) => {
    parseInput(emptyBody, ctx.request.body);
    const marker = await markPresence(svc(ctx), ctx.params.id);
    ctx.body = {
      object: 'review_lock',
      member_id: marker.memberId,
      expires_at: marker.expiresAt.toISOString(),
    } satisfies ReviewLockOut;
  });
  router.delete('/v1/console/reviews/:id/lock', async (ctx) => {
    await clearPresence(svc(ctx), ctx.params.id);
    ctx.body = { object: 'review_lock', deleted: true } satisfies ReviewLockDeletedOut;
  });
  return router;
}
