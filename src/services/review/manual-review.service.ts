import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ManualReview, type ReviewStatus } from '../../entities/manual-review.entity.js';
import { Verification } from '../../entities/verification.entity.js';
import { ApiError, conflict, notFound, permissionError } from '../../errors.js';
import { UUID_PATTERN } from '../../ids.js';
import { dropUnsentOutcomeEmails, queueOutcomeEmail } from './applicant-notification.service.js';
import { recordVerificationEvent } from '../webhooks/index.js';
import { type ServiceContext, paginate, type Page, type PageParams, rawSqlOf } from '../shared/index.js';
import { recordActivity } from '../audit/index.js';
import { authorize, getSettings } from '../access/index.js';
import { DEFAULT_REVIEW_POLICY } from '../../entities/account-settings.entity.js';
import {
  fingerprintsOfVerification,
  PERSON_LOCK_FIELDS,
  lockPerson,
  supersedeOtherCases,
} from '../repeat-control/index.js';
import { reopen, settle } from '../verifications/index.js';

export type ReviewDecision = 'approve' | 'reject' | 'review';

export interface DecisionInput {
  decision: ReviewDecision;
  notes?: string;
  /** Console deciders under `claim_required`: the member who must hold a live claim (else 403 REVIEW_NOT_HELD). */
  mustHold?: string;
  /** A reviewer's words for the applicant (console only): shown in the outcome email, nowhere else. */
  applicantMessage?: string;
}

/** Review states that still wait on a decision (escalation restricts nothing here). */
export const OPEN_REVIEW_STATUSES: ReviewStatus[] = ['queued', 'in_review', 'escalated'];

/**
 * GET /v1/manual-reviews: without `status` only reviews whose verification still awaits a
 * decision; with `status` exactly that status (`resolved` reads decided cases).
 */
export async function listManualReviews(
  ctx: ServiceContext,
  params: PageParams,
  status?: ReviewStatus,
): Promise<Page<ManualReview>> {
  const where = status
    ? { status }
    : { status: { $in: OPEN_REVIEW_STATUSES }, verification: { status: 'manual_review' as const } };
  return paginate(ctx, ManualReview, where, params);
}

export async function getManualReview(ctx: ServiceContext, id: string): Promise<ManualReview> {
  const review = UUID_PATTERN.test(id) ? await ctx.em.findOne(ManualReview, { id }) : null;
  if (!review) throw notFound('manual_review', id);
  return review;
}

/** Whether `memberId` holds a live claim on the case (a lapsed lease counts as none). */
export const holds = (
  review: Pick<ManualReview, 'claimedBy' | 'claimExpiresAt'>,
  memberId: string,
  now = Date.now(),
): boolean => review.claimedBy === memberId && !!review.claimExpiresAt && review.claimExpiresAt.getTime() > now;

/** Who decided, as stored in `decidedBy`; never shown to anyone else. */
function deciderOf(ctx: ServiceContext): string {
  const { caller } = ctx;
  if (caller.kind === 'key') return `key:${caller.keyId}`;
  if (caller.kind === 'member') return `member:${caller.memberId}`;
  return 'system';
}

/**
 * 409 REVIEW_ALREADY_DECIDED with the reached decision. A case settled outside the review
 * (console, policy) without resolving it still answers with the verification's verdict; one
 * closed by R8 answers decision null. The decider is never named.
 */
function alreadyDecided(review: ManualReview, verification: Verification): ApiError {
  const verdict = verification.verdict === 'approve' || verification.verdict === 'reject' ? verification.verdict : null;
  const decision = review.decision === 'approve' || review.decision === 'reject' ? review.decision : verdict;
  const reviewedAt = review.reviewedAt ?? (decision && verification.decidedAt ? verification.decidedAt : null);
  return conflict(
    'REVIEW_ALREADY_DECIDED',
    'This review has already been decided; the decision stands and a retry will not change it.',
    {
      detail: { decision, reviewed_at: reviewedAt ? reviewedAt.toISOString() : null },
    },
  );
}

/**
 * A key deciding an open case (issue 27): keys cannot claim, so a key must not settle a case a
 * member was routed or holds. An assigned case is refused always; a case held by a live claim
 * is refused where claiming is required. The holder is named only as "another member".
 */
function refuseKeyOnRoutedCase(ctx: ServiceContext, review: ManualReview, claimRequired: boolean): void {
  if (ctx.caller.kind !== 'key') return;
  if (review.assignedTo) {
    throw permissionError(
      'REVIEW_NOT_HELD',
      'This case is assigned to another member: an API key cannot decide it. Decide it in the back office, or return it to the shared pool first.',
    );
  }
  if (claimRequired && review.claimedBy && holds(review, review.claimedBy)) {
    throw permissionError(
      'REVIEW_NOT_HELD',
      'Claiming is required and another member holds this case: an API key cannot decide it while the claim lasts.',
    );
  }
}

/** approve/reject on an open case: resolves the review and settles the verification (change_reason reviewer). */
async function resolve(
  em: EntityManager,
  ctx: ServiceContext,
  review: ManualReview,
  verification: Verification,
  input: DecisionInput,
): Promise<void> {
  const decision = input.decision as 'approve' | 'reject';
  review.status = 'resolved';
  review.decision = decision;
  review.reviewedAt = new Date();
  review.decidedBy = deciderOf(ctx);
  review.escalatedAt = null;
  review.claimedBy = null;
  review.claimExpiresAt = null;
  if (input.notes !== undefined) review.notes = input.notes;
  settle(em, verification, {
    status: decision === 'approve' ? 'approved' : 'rejected',
    verdict: decision,
    score: verification.score ?? null,
    reasonCodes: verification.reasonCodes,
    declineType: decision === 'reject' ? 'final' : null,
    changeReason: 'reviewer',
  });
  recordVerificationEvent(em, verification, 'action.reviewed', { review: { id: review.id, decision } });
  queueOutcomeEmail(em, ctx.runtime, verification, decision, input.applicantMessage);
  if (decision === 'approve') await supersedeOtherCases(em, ctx.runtime, verification);
}

/** `review` on a decided case: the verification returns to manual_review, the review to the queue. */
async function reopenCase(
  em: EntityManager,
  review: ManualReview,
  verification: Verification,
  input: DecisionInput,
): Promise<void> {
  reopen(em, verification);
  await dropUnsentOutcomeEmails(em, verification.id);
  review.status = 'queued';
  review.decision = null;
  review.reviewedAt = null;
  review.decidedBy = null;
  review.escalatedAt = null;
  if (input.notes !== undefined) review.notes = input.notes;
  recordVerificationEvent(em, verification, 'action.reviewed', { review: { id: review.id, decision: 'review' } });
  recordVerificationEvent(em, verification, 'action.pending', { review: { id: review.id } });
}

/**
 * POST /v1/manual-reviews/{id}/decision. The person, the verification and the review are
 * locked for the transaction, so of simultaneous deciders exactly one finds the case
 * open; the others read the winner's decision and get REVIEW_ALREADY_DECIDED.
 */
export async function decideManualReview(ctx: ServiceContext, id: string, input: DecisionInput): Promise<ManualReview> {
  const found = await getManualReview(ctx, id);
  const verificationId = found.verification.id;
  const person = await ctx.em.findOneOrFail(Verification, { id: verificationId }, { fields: PERSON_LOCK_FIELDS });
  // Checked before any lock is taken: the refusal message reads the account's keys on another connection.
  const reopenRefusal =
    input.decision === 'review'
      ? await authorize(ctx, { permission: 'verification:reopen', write: true }).then(
          () => null,
          (error: unknown) => error,
        )
      : null;
  const claimRequired =
    ctx.caller.kind === 'key' && input.decision !== 'review'
      ? { ...DEFAULT_REVIEW_POLICY, ...(await getSettings(ctx)).reviewPolicy }.claim_required
      : false;
  return ctx.em.transactional(async (em) => {
    // The person, then the verification, then the review: the order the engine and R8 lock in, so
    // an approval here and one of the same person's other cases elsewhere never deadlock.
    await lockPerson(em, person.merchant.id, person.mode, fingerprintsOfVerification(person));
    const verification = await em.findOneOrFail(
      Verification,
      { id: verificationId },
      { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true },
    );
    const review = await em.findOneOrFail(
      ManualReview,
      { id },
      { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true },
    );
    const open = OPEN_REVIEW_STATUSES.includes(review.status) && verification.status === 'manual_review';
    if (input.decision !== 'review') {
      if (!open) throw alreadyDecided(review, verification);
      refuseKeyOnRoutedCase(ctx, review, claimRequired);
      if (input.mustHold !== undefined && !holds(review, input.mustHold)) {
        throw permissionError(
          'REVIEW_NOT_HELD',
          'Claiming is required before deciding: claim the case first (POST /v1/console/reviews/{id}/claim).',
        );
      }
      await resolve(em, ctx, review, verification, input);
      await recordActivity(
        ctx,
        {
          action: input.decision === 'approve' ? 'review.approved' : 'review.rejected',
          mode: review.mode,
          targetType: 'manual_review',
          targetId: review.id,
        },
        rawSqlOf(em),
      );
      return review;
    }
    if (open) {
      // `review` is not an outcome: a queued case stays queued (reviewed_at null), an escalated one
      // stays with the colleague (only an escalation return re-queues it); legacy in_review re-queues.
      if (review.status === 'in_review') review.status = 'queued';
      return review;
    }
    if (reopenRefusal) throw reopenRefusal;
    if (verification.status !== 'approved' && verification.status !== 'rejected')
      throw alreadyDecided(review, verification);
    await reopenCase(em, review, verification, input);
    await recordActivity(
      ctx,
      { action: 'review.reopened', mode: review.mode, targetType: 'manual_review', targetId: review.id },
      rawSqlOf(em),
    );
    return review;
  });
}
