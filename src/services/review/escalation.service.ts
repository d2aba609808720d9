import { z } from 'zod';
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Check } from '../../entities/check.entity.js';
import { ManualReview, type Escalation } from '../../entities/manual-review.entity.js';
import { Member } from '../../entities/member.entity.js';
import { Verification } from '../../entities/verification.entity.js';
import { invalidRequest, permissionError } from '../../errors.js';
import { authorize } from '../access/index.js';
import { rawSqlOf, type ServiceContext } from '../shared/index.js';
import { recordActivity } from '../audit/index.js';
import { recordVerificationEvent } from '../webhooks/index.js';
import { getManualReview, holds } from './manual-review.service.js';
import { reviewPolicy } from './workbench.service.js';

/** The rules of an escalation's input, shared by the console route and the GraphQL mutation. */
export const escalationInput = z.strictObject({
  /** Why the case goes up, 1 to 1,000 characters (internal; never in a webhook). */
  reason: z.string().trim().min(1, 'must not be empty').max(1000),
  /** The escalating reviewer's opinion, not an outcome: approve, reject or none (default). */
  recommendation: z.enum(['approve', 'reject', 'none']).optional(),
  /** Marks per check type (document, liveness, ...); types that did not run are dropped. */
  assessment: z.record(z.string().max(40), z.enum(['pass', 'fail', 'unsure'])).optional(),
});

export type EscalationInput = z.output<typeof escalationInput>;

const memberOf = (ctx: ServiceContext): string => {
  if (ctx.caller.kind !== 'member')
    throw permissionError('MEMBER_REQUIRED', 'The review workbench acts for a team member.');
  return ctx.caller.memberId;
};

/**
 * The verification then the review, locked for the transaction: the order a decision locks
 * them in, so an escalation racing a decision never deadlocks and exactly one of them applies.
 */
async function lockCase(
  em: EntityManager,
  review: ManualReview,
): Promise<{ verification: Verification; review: ManualReview }> {
  const verification = await em.findOneOrFail(
    Verification,
    { id: review.verification.id },
    { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true },
  );
  const locked = await em.findOneOrFail(
    ManualReview,
    { id: review.id },
    { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true },
  );
  return { verification, review: locked };
}

const notEscalatable = (why: string) => permissionError('REVIEW_NOT_ESCALATABLE', why);

/**
 * Hands the case up (status escalated) with the reviewer's reason, recommendation (an
 * opinion, not an outcome) and marks per check type, dropping types that did not run on the
 * verification; emits action.on_hold with ids only. A decided or already escalated case, or an
 * unheld one where claiming is required, is 403 REVIEW_NOT_ESCALATABLE.
 */
export async function escalateReview(ctx: ServiceContext, id: string, input: EscalationInput): Promise<ManualReview> {
  const member = memberOf(ctx);
  const policy = await reviewPolicy(ctx);
  const found = await getManualReview(ctx, id);
  return ctx.em.transactional(async (em) => {
    const { verification, review } = await lockCase(em, found);
    if (review.status === 'escalated') throw notEscalatable('This case is already escalated.');
    if (review.status === 'resolved' || verification.status !== 'manual_review')
      throw notEscalatable('This case has been decided and cannot be escalated.');
    if (policy.claim_required && !holds(review, member))
      throw notEscalatable('Claiming is required: claim the case before escalating it.');
    const ran = new Set(
      (await em.find(Check, { verification }, { fields: ['type', 'status'] as never }))
        .filter((c) => c.status === 'completed' || c.status === 'errored')
        .map((c) => c.type),
    );
    const assessment = Object.fromEntries(Object.entries(input.assessment ?? {}).filter(([type]) => ran.has(type)));
    const escalation: Escalation = {
      reason: input.reason,
      recommendation: input.recommendation ?? 'none',
      assessment,
      escalated_by: member,
      escalated_at: new Date().toISOString(),
      returned_by: null,
      return_note: null,
    };
    review.status = 'escalated';
    review.escalatedAt = new Date();
    review.escalation = escalation;
    recordVerificationEvent(em, verification, 'action.on_hold', { review: { id: review.id } });
    await recordActivity(
      ctx,
      { action: 'review.escalated', mode: review.mode, targetType: 'manual_review', targetId: review.id },
      rawSqlOf(em),
    );
    return review;
  });
}

/**
 * Returns an escalated case to the queue undecided (reviews.resolve_escalation): the claim
 * ends, the escalation stays with its return note for the reviewer who raised it, and
 * action.pending says the case waits on a reviewer again.
 */
export async function returnEscalation(
  ctx: ServiceContext,
  id: string,
  note?: string,
): Promise<{ review: ManualReview; raisedByMemberId: string | null }> {
  const member = memberOf(ctx);
  await authorize(ctx, { permission: 'reviews.resolve_escalation' });
  const found = await getManualReview(ctx, id);
  return ctx.em.transactional(async (em) => {
    const { verification, review } = await lockCase(em, found);
    if (review.status !== 'escalated' || verification.status !== 'manual_review') {
      throw invalidRequest(
        'REVIEW_NOT_ESCALATED',
        'Only an escalated case that is still open can be returned to the queue.',
      );
    }
    review.status = 'queued';
    review.escalatedAt = null;
    review.claimedBy = null;
    review.claimExpiresAt = null;
    review.escalation = { ...review.escalation!, returned_by: member, return_note: note ?? null };
    recordVerificationEvent(em, verification, 'action.pending', { review: { id: review.id } });
    await recordActivity(
      ctx,
      { action: 'review.escalation_returned', mode: review.mode, targetType: 'manual_review', targetId: review.id },
      rawSqlOf(em),
    );
    return { review, raisedByMemberId: review.escalation.escalated_by ?? null };
  });
}

/**
 * Routes the case to a member (reviews.assign), or back to the shared pool with null. The
 * assignee must be a member of the account whose seat holds the case's environment, else 400
 * ASSIGNEE_CANNOT_DECIDE; an assigned case can be claimed by its assignee only.
 */
export async function assignReview(ctx: ServiceContext, id: string, memberId: string | null): Promise<ManualReview> {
  await authorize(ctx, { permission: 'reviews.assign' });
  const review = await getManualReview(ctx, id);
  if (memberId !== null) {
    const assignee = /^mem_[0-9A-Za-z]+$/.test(memberId) ? await ctx.em.findOne(Member, { id: memberId }) : null;
    if (!assignee || assignee.deactivatedAt || !assignee.environments.includes(review.mode)) {
      throw invalidRequest(
        'ASSIGNEE_CANNOT_DECIDE',
        `Member ${memberId} cannot decide this case: it is not a member of this account holding the ${review.mode} environment.`,
        { param: 'member_id' },
      );
    }
  }
  review.assignedTo = memberId;
  await ctx.em.flush();
  await recordActivity(ctx, {
    action: memberId ? 'review.assigned' : 'review.unassigned',
    mode: review.mode,
    targetType: 'manual_review',
    targetId: review.id,
  });
  return review;
}
