import Router from '@koa/router';
import type { Member } from '../entities/member.entity.js';
import { svc } from '../http/auth.js';
import {
  deactivateMember,
  getTeamMember,
  inviteMember,
  inviteMemberInput,
  listMembers,
  updateMember,
  updateMemberInput,
} from '../services/access/index.js';
import type { InvitedMemberOut, MemberOut } from '../contracts/index.js';
import { presentList } from './presenters.js';
import { listQuery, pageParams, parseInput } from './validate.js';

export const listMembersQuery = listQuery(/^mem_[0-9A-Za-z]+$/);

/** A team member as the console shows it: never the password or its hash. */
export const presentMember = (m: Member): MemberOut => ({
  id: m.id,
  object: 'member' as const,
  email: m.email,
  name: m.name,
  permissions: [...m.permissions],
  environments: [...m.environments],
  status: m.deactivatedAt ? ('deactivated' as const) : ('active' as const),
  created_at: m.createdAt.toISOString(),
  deactivated_at: m.deactivatedAt ? m.deactivatedAt.toISOString() : null,
});

/** /v1/console/members: list, invite (password shown once), update, deactivate (decisions.md, Back office). */
export function consoleMembersRouter(): Router {
  const router = new Router();
  router.get('/v1/console/members', async (ctx) => {
    const query = parseInput(listMembersQuery, ctx.query);
    ctx.body = presentList(await listMembers(svc(ctx), pageParams(query)), presentMember);
  });
  router.post('/v1/console/members', async (ctx) => {
    const invited = await inviteMember(svc(ctx), parseInput(inviteMemberInput, ctx.request.body));
    ctx.status = 201;
    ctx.body = { member: presentMember(invited.member), password: invited.password } satisfies InvitedMemberOut;
  });
  router.get('/v1/console/members/:id', async (ctx) => {
    ctx.body = presentMember(await getTeamMember(svc(ctx), ctx.params.id));
  });
  router.patch('/v1/console/members/:id', async (ctx) => {
    ctx.body = presentMember(
      await updateMember(svc(ctx), ctx.params.id, parseInput(updateMemberInput, ctx.request.body)),
    );
  });
  router.delete('/v1/console/members/:id', async (ctx) => {
    ctx.body = presentMember(await deactivateMember(svc(ctx), ctx.params.id));
  });
  return router;
}
