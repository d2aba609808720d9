import { Arg, Authorized, Ctx, FieldResolver, ID, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { Mode } from '../config.js';
import type { ManualReview } from '../entities/manual-review.entity.js';
import { loadersOf } from '../graphql/loaders.js';
import { Environment } from '../schema/enums.js';
import {
  EscalationReturnType,
  MemberRefType,
  ReviewConnection,
  ReviewLockType,
  ReviewPresenceType,
  ReviewType,
} from '../schema/review.types.js';
import { ReviewPolicyType } from '../schema/settings.types.js';
import { VerificationType } from '../schema/verification.types.js';
import type { VerificationSource } from './verification.resolver.js';
import {
  assignReview,
  claimReview,
  getManualReview,
  consoleDecisionInput,
  clearPresence,
  escalateReview,
  escalationInput,
  returnEscalation,
  decideFromConsole,
  holds,
  listOpenReviews,
  markPresence,
  releaseReview,
  reviewPolicy,
} from '../services/review/index.js';
import { checkedCursor, ID_PATTERNS, parseInput, type ServiceContext } from '../services/shared/index.js';
import { GraphQLJSONObject } from 'graphql-scalars';
import { parameterInvalid } from '../errors.js';
import { pageSize } from './api-key.resolver.js';
import { type Source, type Connection, connectionOf } from './source.js';

/** The reviewer's workbench for team members, through the same services as /v1/console/reviews. */
/** A manual review as the service returns it; the field resolvers add who holds it and who looks at it. */
export type ReviewSource = Source<ReviewType>;

@Resolver(() => ReviewType)
export class ReviewResolver {
  @Authorized()
  @Query(() => ReviewConnection, {
    description: 'Open cases of the environments the seat holds, newest first; holdingMine: the ones you hold.',
  })
  async reviews(
    @Ctx() ctx: ServiceContext,
    @Arg('holdingMine', () => Boolean, { nullable: true }) holdingMine?: boolean,
    @Arg('environment', () => Environment, { nullable: true }) environment?: Environment,
    @Arg('first', () => Int, { nullable: true }) first?: number,
    @Arg('after', () => String, { nullable: true }) after?: string,
  ): Promise<Connection<ReviewSource>> {
    const page = await listOpenReviews(
      ctx,
      { limit: pageSize(first), startingAfter: checkedCursor(after, ID_PATTERNS.uuid) },
      { holdingMine: holdingMine ?? false, environment: environment as Mode | undefined },
    );
    return connectionOf(page);
  }

  @Authorized()
  @Query(() => ReviewType, {
    description: 'One case, open or decided; RESOURCE_NOT_FOUND outside the seat\u2019s account and environments.',
  })
  async review(@Ctx() ctx: ServiceContext, @Arg('id', () => ID) id: string): Promise<ReviewSource> {
    return await getManualReview(ctx, id);
  }

  @Authorized()
  @Query(() => ReviewPolicyType, {
    description: 'claimRequired, claimLeaseMinutes, presenceTtlMs, presenceHeartbeatMs.',
  })
  async reviewPolicy(@Ctx() ctx: ServiceContext): Promise<Source<ReviewPolicyType>> {
    return await reviewPolicy(ctx);
  }

  @Authorized()
  @Mutation(() => ReviewType, {
    description:
      'Holds the case for the lease (renews it when yours); REVIEW_NOT_CLAIMABLE when another member holds it or it is decided.',
  })
  async claimReview(@Ctx() ctx: ServiceContext, @Arg('id', () => ID) id: string): Promise<ReviewSource> {
    return await claimReview(ctx, id);
  }

  @Authorized()
  @Mutation(() => ReviewType, { description: 'Lets go of the case; no error when you do not hold it.' })
  async releaseReview(@Ctx() ctx: ServiceContext, @Arg('id', () => ID) id: string): Promise<ReviewSource> {
    return await releaseReview(ctx, id);
  }

  @Authorized()
  @Mutation(() => ReviewType, {
    description: 'approve or reject (or review); REVIEW_NOT_HELD when claiming is required and you do not hold it.',
  })
  async decideReview(
    @Ctx() ctx: ServiceContext,
    @Arg('id', () => ID) id: string,
    @Arg('decision', () => String) decision: string,
    @Arg('notes', () => String, { nullable: true }) notes?: string,
    @Arg('applicantMessage', () => String, {
      nullable: true,
      description: "Shown in the applicant's outcome email, at most 1,000 characters; never in webhooks.",
    })
    applicantMessage?: string,
  ): Promise<ReviewSource> {
    const input = parseInput(consoleDecisionInput, {
      decision,
      ...(notes != null ? { notes } : {}),
      ...(applicantMessage != null ? { applicant_message: applicantMessage } : {}),
    });
    return decideFromConsole(ctx, id, {
      decision: input.decision,
      notes: input.notes,
      applicantMessage: input.applicant_message,
    });
  }

  @Authorized()
  @Mutation(() => ReviewType, {
    description:
      'Hands the case up; REVIEW_NOT_ESCALATABLE when decided, already escalated or unheld under claimRequired.',
  })
  async escalateReview(
    @Ctx() ctx: ServiceContext,
    @Arg('id', () => ID) id: string,
    @Arg('reason', () => String) reason: string,
    @Arg('recommendation', () => String, { nullable: true }) recommendation?: string,
    @Arg('assessment', () => GraphQLJSONObject, { nullable: true }) assessment?: Record<string, unknown>,
  ): Promise<ReviewSource> {
    const input = parseInput(escalationInput, {
      reason,
      ...(recommendation != null ? { recommendation } : {}),
      ...(assessment != null ? { assessment } : {}),
    });
    return await escalateReview(ctx, id, input);
  }

  @Authorized('reviews.resolve_escalation')
  @Mutation(() => EscalationReturnType, {
    description: 'Returns an escalated case to the queue undecided, with a note for the reviewer who raised it.',
  })
  async returnEscalation(
    @Ctx() ctx: ServiceContext,
    @Arg('id', () => ID) id: string,
    @Arg('note', () => String, { nullable: true }) note?: string,
  ): Promise<Source<EscalationReturnType>> {
    if (note && note.length > 1000) throw parameterInvalid('note', 'note must be at most 1000 characters.');
    const returned = await returnEscalation(ctx, id, note ?? undefined);
    return { review: returned.review, raisedByMemberId: returned.raisedByMemberId };
  }

  @Authorized('reviews.assign')
  @Mutation(() => ReviewType, {
    description:
      'Routes the case to a member (only they may claim it), or to the shared pool with null; ASSIGNEE_CANNOT_DECIDE.',
  })
  async assignReview(
    @Ctx() ctx: ServiceContext,
    @Arg('id', () => ID) id: string,
    @Arg('memberId', () => ID, { nullable: true }) memberId?: string | null,
  ): Promise<ReviewSource> {
    return await assignReview(ctx, id, memberId ?? null);
  }

  @FieldResolver(() => MemberRefType, {
    nullable: true,
    description: 'The member the case is routed to; null: the shared pool.',
  })
  async assignedTo(@Root() review: ManualReview, @Ctx() ctx: ServiceContext): Promise<Source<MemberRefType> | null> {
    if (!review.assignedTo) return null;
    const member = await loadersOf(ctx).member.load(review.assignedTo);
    return member ? { id: member.id, name: member.name } : null;
  }

  @Authorized()
  @Mutation(() => ReviewLockType, {
    description: 'Marks you as looking at the case until presenceTtlMs from now (refresh on the heartbeat).',
  })
  async lockReview(@Ctx() ctx: ServiceContext, @Arg('id', () => ID) id: string): Promise<Source<ReviewLockType>> {
    return markPresence(ctx, id);
  }

  @Authorized()
  @Mutation(() => Boolean, { description: 'Removes your presence marker.' })
  async unlockReview(@Ctx() ctx: ServiceContext, @Arg('id', () => ID) id: string): Promise<boolean> {
    await clearPresence(ctx, id);
    return true;
  }

  @FieldResolver(() => VerificationType, { nullable: true, description: 'The verification under review.' })
  async verification(@Root() review: ManualReview, @Ctx() ctx: ServiceContext): Promise<VerificationSource | null> {
    return await loadersOf(ctx).verification.load(review.verification.id);
  }

  @FieldResolver(() => MemberRefType, {
    nullable: true,
    description: 'Who holds a live claim; null when nobody or lapsed.',
  })
  async claimedBy(@Root() review: ManualReview, @Ctx() ctx: ServiceContext): Promise<Source<MemberRefType> | null> {
    if (!review.claimedBy || !holds(review, review.claimedBy)) return null;
    const member = await loadersOf(ctx).member.load(review.claimedBy);
    return member ? { id: member.id, name: member.name } : null;
  }

  @FieldResolver(() => Date, { nullable: true })
  claimExpiresAt(@Root() review: ManualReview): Date | null {
    return review.claimedBy && holds(review, review.claimedBy) ? (review.claimExpiresAt ?? null) : null;
  }

  @FieldResolver(() => [ReviewPresenceType], { description: 'Live presence markers (advisory).' })
  async beingReviewedBy(
    @Root() review: ManualReview,
    @Ctx() ctx: ServiceContext,
  ): Promise<Source<ReviewPresenceType>[]> {
    const presence = await loadersOf(ctx).presenceByReview.load(review.id);
    return presence.map((p) => ({ member: { id: p.memberId, name: p.name }, since: p.since }));
  }
}
