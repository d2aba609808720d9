import { z } from 'zod';
import { MODES, type Mode } from '../../config.js';
import { Member } from '../../entities/member.entity.js';
import { MemberSession } from '../../entities/member-session.entity.js';
import { invalidRequest, notFound, permissionError } from '../../errors.js';
import { randomBase62 } from '../../ids.js';
import { recordActivity } from '../audit/index.js';
import { paginate, type Page, type PageParams, type ServiceContext } from '../shared/index.js';
import { createMember } from './member.service.js';
import { authorize, MEMBER_PERMISSIONS, type MemberPermission } from './permissions.js';

/**
 * Member management for the back office (decisions.md, Back office): list, invite, update,
 * deactivate. Writes need `settings.manage` (README, Decisions), and a member grants only
 * what it holds itself: it cannot give, take away or switch off permissions or environments
 * it lacks, so a reviewer with a narrow seat can never widen anyone's, its own included.
 */

const permissions = z.array(z.enum(MEMBER_PERMISSIONS)).max(MEMBER_PERMISSIONS.length);
const environments = z.array(z.enum(MODES)).min(1, 'must name at least one environment').max(MODES.length);

export const inviteMemberInput = z.strictObject({
  /** The address the member signs in with; unique within the account (another account's seat is never revealed). */
  email: z.string().trim().email().max(254),
  /** Shown to the team; the address when omitted. */
  name: z.string().trim().min(1).max(200).optional(),
  /** Member permissions (Authentication 9); the inviter must hold each. */
  permissions: permissions.default([]),
  /** The environments the seat holds; the inviter must hold each. */
  environments,
});
export type InviteMemberInput = z.output<typeof inviteMemberInput>;

export const updateMemberInput = z
  .strictObject({
    name: z.string().trim().min(1).max(200).optional(),
    /** The complete new set (not a diff). */
    permissions: permissions.optional(),
    /** The complete new set (not a diff). */
    environments: environments.optional(),
  })
  .refine((body) => Object.keys(body).length > 0, 'name at least one of name, permissions, environments');
export type UpdateMemberInput = z.output<typeof updateMemberInput>;

const actorOf = (ctx: ServiceContext) => {
  if (ctx.caller.kind !== 'member')
    throw permissionError('MEMBER_REQUIRED', 'Member management acts for a team member.');
  return ctx.caller;
};

/** Refuses any permission or environment the acting member does not hold itself. */
function mustHoldAll(
  ctx: ServiceContext,
  granted: { permissions?: readonly string[]; environments?: readonly Mode[] },
  what: string,
): void {
  const actor = actorOf(ctx);
  const permission = granted.permissions?.find((p) => !actor.permissions.includes(p));
  if (permission)
    throw permissionError(
      'INSUFFICIENT_PERMISSIONS',
      `You cannot ${what} the permission "${permission}": you do not hold it yourself.`,
    );
  const environment = granted.environments?.find((e) => !actor.environments.includes(e));
  if (environment)
    throw permissionError(
      'INSUFFICIENT_PERMISSIONS',
      `You cannot ${what} the ${environment} environment: your seat does not hold it.`,
    );
}

/** decisions.md: `verifications.export` only together with `verifications.reveal`. */
function exportNeedsReveal(list: readonly string[]): void {
  if (list.includes('verifications.export') && !list.includes('verifications.reveal')) {
    throw invalidRequest(
      'PARAMETER_INVALID',
      'verifications.export can only be held together with verifications.reveal.',
      { param: 'permissions' },
    );
  }
}

/** An environment both the actor and the member hold: activity rows are filed under an environment. */
const sharedEnvironment = (ctx: ServiceContext, member: Member): Mode =>
  member.environments.find((e) => ctx.modes.includes(e)) ?? ctx.modes[0]!;

export async function listMembers(ctx: ServiceContext, params: PageParams): Promise<Page<Member>> {
  actorOf(ctx);
  return paginate(ctx, Member, {}, params);
}

export async function getTeamMember(ctx: ServiceContext, id: string): Promise<Member> {
  const member = /^mem_[0-9A-Za-z]+$/.test(id) ? await ctx.em.findOne(Member, { id }) : null;
  if (!member) throw notFound('member', id);
  return member;
}

/** Adds a member with a generated password, shown once in the answer. */
export async function inviteMember(
  ctx: ServiceContext,
  input: InviteMemberInput,
): Promise<{ member: Member; password: string }> {
  await authorize(ctx, { permission: 'settings.manage', write: true });
  mustHoldAll(ctx, input, 'grant');
  exportNeedsReveal(input.permissions);
  const password = randomBase62(24);
  const member = await createMember(ctx.em, {
    merchantId: ctx.merchantId,
    email: input.email,
    name: input.name ?? input.email,
    password,
    permissions: input.permissions,
    environments: input.environments,
  });
  await recordActivity(ctx, {
    action: 'member.invited',
    mode: sharedEnvironment(ctx, member),
    targetType: 'member',
    targetId: member.id,
  });
  return { member, password };
}

export async function updateMember(ctx: ServiceContext, id: string, input: UpdateMemberInput): Promise<Member> {
  await authorize(ctx, { permission: 'settings.manage', write: true });
  const member = await getTeamMember(ctx, id);
  if (input.permissions) {
    // Both what is taken away and what is given must be the actor's to hand out.
    mustHoldAll(ctx, { permissions: [...new Set([...member.permissions, ...input.permissions])] }, 'change');
    exportNeedsReveal(input.permissions);
    member.permissions = [...new Set(input.permissions)] as MemberPermission[];
  }
  if (input.environments) {
    mustHoldAll(ctx, { environments: [...new Set([...member.environments, ...input.environments])] }, 'change');
    member.environments = [...new Set(input.environments)];
  }
  if (input.name) member.name = input.name;
  await ctx.em.flush();
  await recordActivity(ctx, {
    action: 'member.updated',
    mode: sharedEnvironment(ctx, member),
    targetType: 'member',
    targetId: member.id,
  });
  return member;
}

/**
 * Switches a member off: its sessions end at once and it can no longer sign in. A member
 * cannot deactivate itself, nor one holding what it lacks. Deactivating twice is no error.
 */
export async function deactivateMember(ctx: ServiceContext, id: string): Promise<Member> {
  await authorize(ctx, { permission: 'settings.manage', write: true });
  const actor = actorOf(ctx);
  const member = await getTeamMember(ctx, id);
  if (member.id === actor.memberId)
    throw invalidRequest(
      'MEMBER_CANNOT_DEACTIVATE_SELF',
      'You cannot deactivate yourself; ask another member who manages the team.',
    );
  mustHoldAll(ctx, member, 'take away');
  if (member.deactivatedAt) return member;
  member.deactivatedAt = new Date();
  await ctx.em.nativeUpdate(MemberSession, { member: member.id, revokedAt: null }, { revokedAt: new Date() });
  await ctx.em.flush();
  await recordActivity(ctx, {
    action: 'member.deactivated',
    mode: sharedEnvironment(ctx, member),
    targetType: 'member',
    targetId: member.id,
  });
  return member;
}
