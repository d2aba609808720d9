import { Arg, Authorized, Ctx, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import { InvitedMemberType, MemberConnection, MemberType } from '../schema/account.types.js';
import { Environment } from '../schema/enums.js';
import {
  deactivateMember,
  getTeamMember,
  inviteMember,
  inviteMemberInput,
  listMembers,
  updateMember,
  updateMemberInput,
} from '../services/access/index.js';
import { checkedCursor, parseInput, type ServiceContext } from '../services/shared/index.js';
import { pageSize } from './api-key.resolver.js';
import { type Source, type Connection, connectionOf } from './source.js';

const MEMBER_ID = /^mem_[0-9A-Za-z]+$/;
/** Only the arguments given: an omitted one is no change (update) or the default (invite). */
const given = (values: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined && v !== null));

/** Member management for the back office, through the same services and rules as /v1/console/members. */
@Resolver()
export class TeamResolver {
  @Authorized()
  @Query(() => MemberConnection, { description: 'Team members of the account, newest first.' })
  async members(
    @Ctx() ctx: ServiceContext,
    @Arg('first', () => Int, { nullable: true }) first?: number,
    @Arg('after', () => String, { nullable: true }) after?: string,
  ): Promise<Connection<Source<MemberType>>> {
    const page = await listMembers(ctx, { limit: pageSize(first), startingAfter: checkedCursor(after, MEMBER_ID) });
    return connectionOf(page);
  }

  @Authorized()
  @Query(() => MemberType)
  async member(@Ctx() ctx: ServiceContext, @Arg('id', () => ID) id: string): Promise<Source<MemberType>> {
    return await getTeamMember(ctx, id);
  }

  @Authorized('settings.manage')
  @Mutation(() => InvitedMemberType, {
    description:
      'Adds a member with a generated password (shown once); grant only permissions and environments you hold.',
  })
  async inviteMember(
    @Ctx() ctx: ServiceContext,
    @Arg('email', () => String) email: string,
    @Arg('environments', () => [Environment]) environments: Environment[],
    @Arg('permissions', () => [String], { nullable: true }) permissions?: string[],
    @Arg('name', () => String, { nullable: true }) name?: string,
  ): Promise<Source<InvitedMemberType>> {
    const invited = await inviteMember(
      ctx,
      parseInput(inviteMemberInput, given({ email, environments, permissions, name })),
    );
    return { member: invited.member, password: invited.password };
  }

  @Authorized('settings.manage')
  @Mutation(() => MemberType, {
    description: 'Changes name, permissions or environments (complete sets); only what you hold yourself.',
  })
  async updateMember(
    @Ctx() ctx: ServiceContext,
    @Arg('id', () => ID) id: string,
    @Arg('name', () => String, { nullable: true }) name?: string,
    @Arg('permissions', () => [String], { nullable: true }) permissions?: string[],
    @Arg('environments', () => [Environment], { nullable: true }) environments?: Environment[],
  ): Promise<Source<MemberType>> {
    return updateMember(ctx, id, parseInput(updateMemberInput, given({ name, permissions, environments })));
  }

  @Authorized('settings.manage')
  @Mutation(() => MemberType, {
    description: 'Deactivates a member: its sessions end and it cannot sign in. Not yourself.',
  })
  async deactivateMember(@Ctx() ctx: ServiceContext, @Arg('id', () => ID) id: string): Promise<Source<MemberType>> {
    return await deactivateMember(ctx, id);
  }
}
