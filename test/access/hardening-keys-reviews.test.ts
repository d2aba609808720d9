import type { BootstrapResult } from '../../src/services/access/index.js';
import {
  CreateApiKeyDocument,
  KeyActivityDocument,
  RevokeApiKeyDocument,
  RotateApiKeyDocument,
} from '../graphql/generated.js';
import { gql } from '../support/graphql.js';
import { signedInMember } from '../support/members.js';
import type { TestServer } from '../support/test-server.js';
import { withTestAccount } from '../support/account.js';
import { createVerification } from '../support/factories.js';
import { waitFor } from '../support/wait.js';

let server: TestServer;
let account: BootstrapResult;
let sandbox: string;
let owner: string;
withTestAccount((t) => {
  ({ server, account, sandbox } = t);
  owner = account.member.session_token;
});

describe('managing keys from a seat needs keys.manage and leaves an activity row (issue 27, item 6)', () => {
  it('a member without keys.manage can neither create, revoke nor rotate a key; the key keeps working', async () => {
    const { token } = await signedInMember(server, account, ['logs.read', 'settings.manage']);
    const created = await gql(server, token, CreateApiKeyDocument, { input: { name: 'nope', environment: 'sandbox' } });
    expect(created.body.errors?.[0].extensions).toMatchObject({
      code: 'INSUFFICIENT_PERMISSIONS',
      type: 'permission_error',
    });
    const revoked = await gql(server, token, RevokeApiKeyDocument, { id: account.keys.sandbox.id });
    expect(revoked.body.errors?.[0].extensions).toMatchObject({ code: 'INSUFFICIENT_PERMISSIONS' });
    const rotated = await gql(server, token, RotateApiKeyDocument, { id: account.keys.sandbox.id });
    expect(rotated.body.errors?.[0].extensions).toMatchObject({ code: 'INSUFFICIENT_PERMISSIONS' });
    expect((await server.request('/v1/merchant', { token: sandbox })).status).toBe(200);
  });

  it('the owner holds keys.manage; create, rotate and revoke each write an activity row naming the member, the key name and prefix, never the secret', async () => {
    const viewer = await server.graphql(owner, '{ viewer { member { id permissions } } }');
    expect(viewer.body.data.viewer.member.permissions).toContain('keys.manage');
    const memberId = viewer.body.data.viewer.member.id;
    const created = await gql(server, owner, CreateApiKeyDocument, {
      input: { name: 'Backend', environment: 'sandbox' },
    });
    expect(created.body.errors).toBeUndefined();
    const first = created.body.data!.createApiKey;
    const rotated = await gql(server, owner, RotateApiKeyDocument, { id: first.apiKey.id });
    expect(rotated.body.errors).toBeUndefined();
    const second = rotated.body.data!.rotateApiKey;
    expect(second.apiKey).toMatchObject({
      name: 'Backend',
      environment: 'sandbox',
      status: 'active',
      permissions: first.apiKey.permissions,
    });
    expect(second.secretKey).not.toBe(first.secretKey);
    // The old secret stops at once; the new one works.
    expect((await server.request('/v1/merchant', { token: first.secretKey })).status).toBe(401);
    expect((await server.request('/v1/merchant', { token: second.secretKey })).status).toBe(200);
    const revoked = await gql(server, owner, RevokeApiKeyDocument, { id: second.apiKey.id });
    expect(revoked.body.data?.revokeApiKey.status).toBe('revoked');

    const rows = (await gql(server, owner, KeyActivityDocument, { first: 20 })).body.data!.activity.nodes.filter(
      (n) => n.targetType === 'api_key',
    );
    expect(rows.map((r) => [r.action, r.targetId])).toEqual([
      ['api_key.revoked', second.apiKey.id],
      ['api_key.rotated', second.apiKey.id],
      ['api_key.created', first.apiKey.id],
    ]);
    for (const row of rows) {
      expect(row).toMatchObject({ memberId, surface: 'graphql', environment: 'sandbox' });
      expect(row.detail).toMatchObject({ name: 'Backend', key_prefix: expect.stringMatching(/^sk_test_.{4}$/) });
    }
    expect(rows[2]!.detail).toMatchObject({ key_prefix: first.apiKey.keyPrefix });
    expect(rows[1]!.detail).toMatchObject({ key_prefix: second.apiKey.keyPrefix, replaced_key_id: first.apiKey.id });
    // Never the secret, in either surface or in the table.
    const rest = await server.request('/v1/console/activity?limit=20', { token: owner });
    const text = JSON.stringify([rows, rest.body]);
    expect(text).not.toContain(first.secretKey);
    expect(text).not.toContain(second.secretKey);
    expect(rest.body.data.find((r: { action: string }) => r.action === 'api_key.created')).toMatchObject({
      member_id: memberId,
      detail: { name: 'Backend', key_prefix: first.apiKey.keyPrefix },
    });
    expect(
      await server.sql(`select id from activity_events where detail::text like '%' || $1 || '%'`, [
        first.secretKey.slice(12),
      ]),
    ).toEqual([]);
  });

  it('a key creating or revoking a key through the key API leaves an activity row too (surface api)', async () => {
    const created = await server.request('/v1/api-keys', {
      token: sandbox,
      body: { name: 'Minted by a key', environment: 'sandbox' },
    });
    expect(created.status).toBe(201);
    await server.request(`/v1/api-keys/${created.body.id}`, { token: sandbox, method: 'DELETE' });
    const rows = await server.sql<{
      action: string;
      surface: string;
      member_id: string | null;
      detail: Record<string, string>;
    }>(`select action, surface, member_id, detail from activity_events where target_id = $1 order by created_at`, [
      created.body.id,
    ]);
    expect(rows).toEqual([
      {
        action: 'api_key.created',
        surface: 'api',
        member_id: null,
        detail: { name: 'Minted by a key', key_prefix: created.body.key_prefix },
      },
      {
        action: 'api_key.revoked',
        surface: 'api',
        member_id: null,
        detail: { name: 'Minted by a key', key_prefix: created.body.key_prefix },
      },
    ]);
  });
});

/** A sandbox verification the engine sends to manual review; resolves to its review id. */
async function queuedCase(): Promise<string> {
  const v = await createVerification(server, account, 'sandbox', { sandbox: { outcome: 'review' } });
  return waitFor(
    async () => {
      const [row] = await server.sql<{ id: string }>('select id from manual_reviews where verification_id = $1', [
        v.id,
      ]);
      return row?.id;
    },
    15_000,
    'the manual review',
  );
}

describe('a key cannot decide a case a member holds or was assigned (issue 27, item 7)', () => {
  const keyDecides = (id: string, token = sandbox) =>
    server.request(`/v1/manual-reviews/${id}/decision`, { token, body: { decision: 'approve' } });
  const setPolicy = (claimRequired: boolean) =>
    server.request('/v1/console/settings', {
      token: owner,
      method: 'PATCH',
      body: { review_policy: { claim_required: claimRequired } },
    });

  afterAll(() => setPolicy(false));

  it('with claiming required, a case another member holds is 403 for a key, naming the holder only as another member', async () => {
    expect((await setPolicy(true)).status).toBe(200);
    const holder = await signedInMember(server, account, []);
    const id = await queuedCase();
    expect(
      (await server.request(`/v1/console/reviews/${id}/claim`, { token: holder.token, method: 'POST', body: {} }))
        .status,
    ).toBe(200);
    // A narrow key minted for the purpose (verification:create is all the decision route asks).
    const minted = await server.request('/v1/api-keys', {
      token: sandbox,
      body: { name: 'decider', environment: 'sandbox', permissions: ['verification:create'] },
    });
    const res = await keyDecides(id, minted.body.secret_key);
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ type: 'permission_error', code: 'REVIEW_NOT_HELD' });
    expect(res.body.error.message).toContain('another member');
    expect(JSON.stringify(res.body)).not.toContain(holder.id);
    const [row] = await server.sql<{ status: string }>('select status from manual_reviews where id = $1', [id]);
    expect(row!.status).not.toBe('resolved');
    // Once the holder lets go, the key may decide (keys cannot claim).
    await server.request(`/v1/console/reviews/${id}/claim`, { token: holder.token, method: 'DELETE' });
    expect((await keyDecides(id)).status).toBe(200);
  });

  it('a case assigned to a member is refused to a key whatever the policy', async () => {
    expect((await setPolicy(false)).status).toBe(200);
    const assignee = await signedInMember(server, account, []);
    const id = await queuedCase();
    const assigned = await server.request(`/v1/console/reviews/${id}/assignment`, {
      token: owner,
      method: 'PUT',
      body: { member_id: assignee.id },
    });
    expect(assigned.status).toBe(200);
    const res = await keyDecides(id);
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ code: 'REVIEW_NOT_HELD' });
    expect(res.body.error.message).toContain('another member');
    expect(JSON.stringify(res.body)).not.toContain(assignee.id);
  });
});

describe('inviting an address that is a member elsewhere reveals nothing (issue 27, item 14)', () => {
  it("answers 201 like any new invite; the person signs in to each account with that account's password", async () => {
    const other = await server.bootstrap();
    const email = `shared-${Date.now()}@example.com`;
    const there = await server.request('/v1/console/members', {
      token: other.member.session_token,
      body: { email, environments: ['sandbox'] },
    });
    expect(there.status).toBe(201);
    const here = await server.request('/v1/console/members', {
      token: owner,
      body: { email, environments: ['sandbox'] },
    });
    expect(here.status).toBe(201);
    expect(here.body.member).toMatchObject({ email });
    expect(here.body.password).not.toBe(there.body.password);
    // Same address, one account at a time: each password opens its own account's seat.
    for (const [invite, merchantId] of [
      [here, account.merchant.id],
      [there, other.merchant.id],
    ] as const) {
      const session = await server.request('/v1/console/sessions', { body: { email, password: invite.body.password } });
      expect(session.status).toBe(201);
      const viewer = await server.graphql(session.body.token, '{ viewer { merchant { id } member { id } } }');
      expect(viewer.body.data.viewer).toMatchObject({
        merchant: { id: merchantId },
        member: { id: invite.body.member.id },
      });
    }
    // Inviting it again into the same account is still a conflict (the inviter's own team).
    const again = await server.request('/v1/console/members', {
      token: owner,
      body: { email, environments: ['sandbox'] },
    });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('MEMBER_EXISTS');
  });
});
