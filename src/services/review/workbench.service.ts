import type { Mode } from '../../config.js';
import { DEFAULT_REVIEW_POLICY, type ReviewPolicy } from '../../entities/account-settings.entity.js';
import { ManualReview } from '../../entities/manual-review.entity.js';
import { notFound, permissionError } from '../../errors.js';
import { UUID_PATTERN } from '../../ids.js';
import { getSettings } from '../access/index.js';
import { recordActivity } from '../audit/index.js';
import {
  asDate,
  paginate,
  tenantSql,
  type Page,
  type PageParams,
  type ServiceContext,
  type TenantScope,
} from '../shared/index.js';
import {
  decideManualReview,
  getManualReview,
  OPEN_REVIEW_STATUSES,
  type ReviewDecision,
} from './manual-review.service.js';

/**
 * The reviewer's workbench (console and GraphQL): the open-case queue, claims with a lease,
 * advisory presence markers and decisions stamped with the member. A lapsed lease or marker
 * counts as none the moment it lapses: every read compares its expiry with now(), so no job
 * has to clear it first.
 */

export interface Presence {
  memberId: string;
  name: string;
  since: Date;
}

const memberOf = (ctx: ServiceContext): string => {
  if (ctx.caller.kind !== 'member')
    throw permissionError('MEMBER_REQUIRED', 'The review workbench acts for a team member.');
  return ctx.caller.memberId;
};

/** The account's review policy (decisions.md): claim_required, claim_lease_minutes, presence_ttl_ms, presence_heartbeat_ms. */
export async function reviewPolicy(ctx: ServiceContext): Promise<ReviewPolicy> {
  return { ...DEFAULT_REVIEW_POLICY, ...(await getSettings(ctx)).reviewPolicy };
}

/**
 * Open cases of the seat's environments (or the one asked, empty when the seat lacks it),
 * newest first; `holdingMine` keeps the cases the caller holds a live claim on.
 */
export async function listOpenReviews(
  ctx: ServiceContext,
  params: PageParams,
  filter: { holdingMine?: boolean; environment?: Mode } = {},
): Promise<Page<ManualReview>> {
  const modes = filter.environment ? ctx.modes.filter((m) => m === filter.environment) : ctx.modes;
  if (modes.length === 0) return { data: [], hasMore: false, nextCursor: null };
  const where: Record<string, unknown> = {
    mode: { $in: modes },
    status: { $in: OPEN_REVIEW_STATUSES },
    verification: { status: 'manual_review' },
  };
  if (filter.holdingMine) Object.assign(where, { claimedBy: memberOf(ctx), claimExpiresAt: { $gt: new Date() } });
  return paginate(ctx, ManualReview, where as never, params);
}

/** Who is looking at each of these cases right now (live presence markers), one statement for a page. */
export async function presenceOf(ctx: TenantScope, reviewIds: readonly string[]): Promise<Map<string, Presence[]>> {
  const out = new Map<string, Presence[]>(reviewIds.map((id) => [id, []]));
  if (reviewIds.length === 0) return out;
  const rows = await tenantSql(ctx).query<{ review_id: string; member_id: string; name: string; since: string | Date }>(
    `select p.review_id, p.member_id, m.name, p.since from review_presence p join members m on m.id = p.member_id and m.merchant_id = p.merchant_id
      where p.merchant_id = $1 and p.mode = any($2::text[]) and p.review_id = any($3::uuid[]) and p.expires_at > now()
      order by p.since`,
    [[...reviewIds]],
    'idv_review_presence',
  );
  for (const row of rows)
    out.get(row.review_id)?.push({ memberId: row.member_id, name: row.name, since: asDate(row.since) });
  return out;
}

/** An open case of the caller's scope, or 404 (another account's or environment's id included). */
async function openCase(ctx: ServiceContext, id: string): Promise<ManualReview> {
  if (!UUID_PATTERN.test(id)) throw notFound('manual_review', id);
  return getManualReview(ctx, id);
}

const notClaimable = (why: string) => permissionError('REVIEW_NOT_CLAIMABLE', why);

/**
 * Holds the case for `claim_lease_minutes`; the holder claiming again renews it. One
 * statement decides among simultaneous claimers (the row's own update), so exactly one holds
 * it; another member's live claim or a decided case is 403 REVIEW_NOT_CLAIMABLE.
 */
export async function claimReview(ctx: ServiceContext, id: string): Promise<ManualReview> {
  const member = memberOf(ctx);
  const policy = await reviewPolicy(ctx);
  const review = await openCase(ctx, id);
  const [claimed] = await tenantSql(ctx).query<{ id: string }>(
    `update manual_reviews r set claimed_by = $4, claim_expires_at = now() + make_interval(mins => $5), updated_at = now()
      from verifications v
     where r.id = $3 and r.merchant_id = $1 and r.mode = any($2::text[]) and v.id = r.verification_id and v.status = 'manual_review'
       and r.status in ('queued', 'in_review', 'escalated')
       and (r.claimed_by is null or r.claimed_by = $4 or r.claim_expires_at <= now())
       and (r.assigned_to is null or r.assigned_to = $4)
     returning r.id`,
    [review.id, member, policy.claim_lease_minutes],
    'idv_claim_review',
  );
  if (!claimed) {
    const current = await ctx.em.refresh(review);
    if (!current || !OPEN_REVIEW_STATUSES.includes(current.status))
      throw notClaimable('This case has been decided and cannot be claimed.');
    if (current.assignedTo && current.assignedTo !== member)
      throw notClaimable('This case is assigned to another team member.');
    throw notClaimable('Another team member holds this case; wait for them to release it or for their claim to lapse.');
  }
  await recordActivity(ctx, {
    action: 'review.claimed',
    mode: review.mode,
    targetType: 'manual_review',
    targetId: review.id,
  });
  return (await ctx.em.refresh(review))!;
}

/** Lets go of the case; releasing one the caller does not hold changes nothing and is no error. */
export async function releaseReview(ctx: ServiceContext, id: string): Promise<ManualReview> {
  const member = memberOf(ctx);
  const review = await openCase(ctx, id);
  const released = await tenantSql(ctx).query(
    `update manual_reviews set claimed_by = null, claim_expires_at = null, updated_at = now()
      where id = $3 and merchant_id = $1 and mode = any($2::text[]) and claimed_by = $4 returning id`,
    [review.id, member],
    'idv_release_review',
  );
  if (released.length > 0)
    await recordActivity(ctx, {
      action: 'review.released',
      mode: review.mode,
      targetType: 'manual_review',
      targetId: review.id,
    });
  return (await ctx.em.refresh(review))!;
}

/**
 * A console decision: the same transaction and rules as the key API's (exactly one of
 * simultaneous deciders wins, whichever surface), stamped with the member; with
 * `claim_required` the member must hold a live claim (403 REVIEW_NOT_HELD).
 */
export async function decideFromConsole(
  ctx: ServiceContext,
  id: string,
  input: { decision: ReviewDecision; notes?: string; applicantMessage?: string },
): Promise<ManualReview> {
  const member = memberOf(ctx);
  const policy = await reviewPolicy(ctx);
  await openCase(ctx, id);
  return decideManualReview(ctx, id, { ...input, mustHold: policy.claim_required ? member : undefined });
}

/** Marks the caller as looking at the case until now + presence_ttl_ms (the page refreshes it on the heartbeat). */
export async function markPresence(ctx: ServiceContext, id: string): Promise<{ memberId: string; expiresAt: Date }> {
  const member = memberOf(ctx);
  const policy = await reviewPolicy(ctx);
  const review = await openCase(ctx, id);
  const [row] = await tenantSql(ctx).query<{ expires_at: string | Date }>(
    `insert into review_presence (review_id, member_id, merchant_id, mode, since, expires_at)
     select r.id, $4, r.merchant_id, r.mode, now(), now() + make_interval(secs => $5::float8 / 1000)
       from manual_reviews r where r.id = $3 and r.merchant_id = $1 and r.mode = any($2::text[])
     on conflict (review_id, member_id) do update
       set expires_at = excluded.expires_at, since = case when review_presence.expires_at > now() then review_presence.since else excluded.since end
     returning expires_at`,
    [review.id, member, policy.presence_ttl_ms],
    'idv_mark_presence',
  );
  return { memberId: member, expiresAt: asDate(row!.expires_at) };
}

/** Removes the caller's presence marker (leaving the page); none to remove is no error. */
export async function clearPresence(ctx: ServiceContext, id: string): Promise<void> {
  const member = memberOf(ctx);
  const review = await openCase(ctx, id);
  await tenantSql(ctx).query(
    `delete from review_presence where review_id = $3 and merchant_id = $1 and mode = any($2::text[]) and member_id = $4`,
    [review.id, member],
    'idv_clear_presence',
  );
}
