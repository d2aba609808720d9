import type { BootstrapResult } from '../../src/services/access/index.js';
import {
  DeactivateMemberDocument,
  InviteMemberDocument,
  MembersDocument,
  UpdateMemberDocument,
} from '../graphql/generated.js';
import { gql } from '../support/graphql.js';
import type { TestServer } from '../support/test-server.js';
import { withTestAccount } from '../support/account.js';
import { createVerification } from '../support/factories.js';
import { waitFor } from '../support/wait.js';

let server: TestServer;
let account: BootstrapResult;
let owner: string;
withTestAccount((t) => {
  ({ server, account } = t);
  owner = account.member.session_token;
});

let seq = 0;
const email = (tag: string) => `team-${tag}-${Date.now()}-${++seq}@example.com`;
const invite = (body: Record<string, unknown>, token = owner) => server.request('/v1/console/members', { token, body });
const signIn = (address: string, password: string) =>
  server.request('/v1/console/sessions', { body: { email: address, password } });

/** Invites a member as the owner and signs it in. */
async function invited(permissions: string[], environments: string[] = ['sandbox', 'live']) {
  const address = email('m');
  const res = await invite({ email: address, permissions, environments });
  expect(res.status).toBe(201);
  const session = await signIn(address, res.body.password);
  expect(session.status).toBe(201);
  return { id: res.body.member.id as string, token: session.body.token as string, email: address };
}

const activity = (targetId: string) =>
  server.sql<{ action: string; surface: string; member_id: string }>(
    'select action, surface, member_id from activity_events where target_id = $1 order by created_at',
    [targetId],
  );

describe('/v1/console/members', () => {
  it('invites a member with a password shown once that signs in, lists members without secrets, and records the activity', async () => {
    const address = email('invite');
    const res = await invite({
      email: address,
      name: 'New reviewer',
      permissions: ['verifications.reveal'],
      environments: ['sandbox'],
    });
    expect(res.status).toBe(201);
    expect(res.body.member).toMatchObject({
      object: 'member',
      email: address,
      name: 'New reviewer',
      permissions: ['verifications.reveal'],
      environments: ['sandbox'],
      status: 'active',
      deactivated_at: null,
    });
    expect(res.body.password).toMatch(/^[0-9A-Za-z]{24}$/);
    expect((await signIn(address, res.body.password)).status).toBe(201);
    const list = await server.request('/v1/console/members?limit=100', { token: owner });
    expect(list.status).toBe(200);
    expect(list.body.data.map((m: { id: string }) => m.id)).toEqual(
      expect.arrayContaining([account.member.id, res.body.member.id]),
    );
    expect(JSON.stringify(list.body)).not.toMatch(/password|hash|\$argon|\$2[aby]\$/i);
    expect(await activity(res.body.member.id)).toEqual([
      { action: 'member.invited', surface: 'console', member_id: account.member.id },
    ]);
    const again = await invite({ email: address.toUpperCase(), environments: ['sandbox'] });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('MEMBER_EXISTS');
  });

  it('a member grants only permissions and environments it holds; export needs reveal; writes need settings.manage', async () => {
    const manager = await invited(['settings.manage', 'logs.read'], ['sandbox']);
    const wider = await invite(
      { email: email('wider'), permissions: ['verifications.reveal'], environments: ['sandbox'] },
      manager.token,
    );
    expect(wider.status).toBe(403);
    expect(wider.body.error).toMatchObject({ type: 'permission_error', code: 'INSUFFICIENT_PERMISSIONS' });
    expect(wider.body.error.message).toContain('verifications.reveal');
    const live = await invite(
      { email: email('live'), permissions: ['logs.read'], environments: ['live'] },
      manager.token,
    );
    expect(live.status).toBe(403);
    expect(live.body.error.message).toContain('live');
    expect(
      (await invite({ email: email('narrow'), permissions: ['logs.read'], environments: ['sandbox'] }, manager.token))
        .status,
    ).toBe(201);
    const exportOnly = await invite({
      email: email('export'),
      permissions: ['verifications.export'],
      environments: ['sandbox'],
    });
    expect(exportOnly.status).toBe(400);
    expect(exportOnly.body.error).toMatchObject({ code: 'PARAMETER_INVALID', param: 'permissions' });
    const unknown = await invite({ email: email('unknown'), permissions: ['everything'], environments: ['sandbox'] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.param).toBe('permissions[0]');
    const reviewer = await invited([], ['sandbox']);
    const refused = await invite({ email: email('x'), environments: ['sandbox'] }, reviewer.token);
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toContain('settings.manage');
  });

  it('update replaces permission and environment sets, never widening beyond the actor; another account answers 404', async () => {
    const target = await invited(['logs.read'], ['sandbox']);
    const updated = await server.request(`/v1/console/members/${target.id}`, {
      method: 'PATCH',
      token: owner,
      body: { permissions: ['logs.read', 'persons.read'], environments: ['sandbox', 'live'] },
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({
      permissions: ['logs.read', 'persons.read'],
      environments: ['sandbox', 'live'],
    });
    // The member's next request runs with the new seat.
    expect((await server.request('/v1/console/verifications?mode=live', { token: target.token })).status).toBe(200);
    const manager = await invited(['settings.manage', 'logs.read'], ['sandbox', 'live']);
    const strip = await server.request(`/v1/console/members/${target.id}`, {
      method: 'PATCH',
      token: manager.token,
      body: { permissions: ['logs.read'] },
    });
    expect(strip.status).toBe(403); // persons.read is not the manager's to take away
    const self = await server.request(`/v1/console/members/${manager.id}`, {
      method: 'PATCH',
      token: manager.token,
      body: { permissions: ['settings.manage', 'logs.read', 'verifications.reveal'] },
    });
    expect(self.status).toBe(403);
    expect(
      (await server.request(`/v1/console/members/${target.id}`, { method: 'PATCH', token: owner, body: {} })).status,
    ).toBe(400);
    const other = await server.bootstrap();
    expect(
      (await server.request(`/v1/console/members/${target.id}`, { token: other.member.session_token })).status,
    ).toBe(404);
    expect(
      (
        await server.request(`/v1/console/members/${target.id}`, {
          method: 'DELETE',
          token: other.member.session_token,
        })
      ).status,
    ).toBe(404);
  });

  it('deactivation ends sessions at once, refuses sign-in and assignment, and never applies to yourself', async () => {
    const target = await invited(['logs.read'], ['sandbox']);
    const self = await server.request(`/v1/console/members/${account.member.id}`, { method: 'DELETE', token: owner });
    expect(self.status).toBe(400);
    expect(self.body.error.code).toBe('MEMBER_CANNOT_DEACTIVATE_SELF');
    const off = await server.request(`/v1/console/members/${target.id}`, { method: 'DELETE', token: owner });
    expect(off.status).toBe(200);
    expect(off.body).toMatchObject({ id: target.id, status: 'deactivated', deactivated_at: expect.any(String) });
    expect((await server.request(`/v1/console/members/${target.id}`, { method: 'DELETE', token: owner })).status).toBe(
      200,
    );
    const afterwards = await server.request('/v1/console/verifications', { token: target.token });
    expect(afterwards.status).toBe(401);
    const login = await signIn(target.email, 'whatever-password-123');
    expect(login.status).toBe(401);
    expect(login.body.error.code).toBe('INVALID_CREDENTIALS');
    const v = await createVerification(server, account, 'sandbox', { sandbox: { outcome: 'review' } });
    const review = await waitFor(
      async () =>
        (await server.sql<{ id: string }>('select id from manual_reviews where verification_id = $1', [v.id]))[0],
      15_000,
      'the review',
    );
    const assign = await server.request(`/v1/console/reviews/${review.id}/assignment`, {
      method: 'PUT',
      token: owner,
      body: { member_id: target.id },
    });
    expect(assign.status).toBe(400);
    expect(assign.body.error.code).toBe('ASSIGNEE_CANNOT_DECIDE');
    expect((await activity(target.id)).map((a) => a.action)).toEqual(['member.invited', 'member.deactivated']);
  });
});

describe('GraphQL member management', () => {
  it('lists, invites, updates and deactivates through the same rules (activity surface graphql)', async () => {
    const address = email('gql');
    const created = await gql(server, owner, InviteMemberDocument, {
      email: address,
      environments: ['sandbox'],
      permissions: ['logs.read'],
    });
    expect(created.body.errors).toBeUndefined();
    const id = created.body.data!.inviteMember.member.id;
    expect((await signIn(address, created.body.data!.inviteMember.password)).status).toBe(201);
    const listed = await gql(server, owner, MembersDocument, { first: 100 });
    expect(listed.body.data!.members.nodes.find((m) => m.id === id)).toMatchObject({
      email: address,
      permissions: ['logs.read'],
      deactivatedAt: null,
    });
    const updated = await gql(server, owner, UpdateMemberDocument, { id, permissions: ['logs.read', 'persons.read'] });
    expect(updated.body.data!.updateMember).toMatchObject({
      permissions: ['logs.read', 'persons.read'],
      environments: ['sandbox'],
    });
    const bad = await gql(server, owner, UpdateMemberDocument, { id, permissions: ['verifications.export'] });
    expect(bad.body.errors![0]!.extensions).toMatchObject({ code: 'PARAMETER_INVALID' });
    const off = await gql(server, owner, DeactivateMemberDocument, { id });
    expect(off.body.data!.deactivateMember.deactivatedAt).toBeTruthy();
    expect((await activity(id)).map((a) => a.surface)).toEqual(['graphql', 'graphql', 'graphql']);
  });
});
