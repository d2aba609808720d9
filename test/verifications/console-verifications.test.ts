import type { BootstrapResult } from '../../src/services/access/index.js';
import {
  ActivityDocument,
  AuditEventsDocument,
  ConsoleCasesDocument,
  EvidenceDocument,
  RevealIdentityDocument,
} from '../graphql/generated.js';
import { gql } from '../support/graphql.js';
import type { TestServer } from '../support/test-server.js';
import { withTestAccount } from '../support/account.js';
import { signedInMember } from '../support/members.js';
import { createVerification } from '../support/factories.js';
import { pngBytes } from '../support/fixtures.js';
import { waitFor } from '../support/wait.js';

let server: TestServer;
let account: BootstrapResult;
let owner: string;
withTestAccount((t) => {
  ({ server, account } = t);
  owner = account.member.session_token;
});

const settledStatus = (id: string) =>
  waitFor(
    async () => {
      const res = await server.request(`/v1/console/verifications/${id}`, { token: owner });
      return ['approved', 'rejected', 'manual_review', 'expired'].includes(res.body.status) ? res.body : undefined;
    },
    15_000,
    'the verdict',
  );

const audits = (verificationId: string) =>
  server.sql<{ action: string; member_id: string; field_names: string[] | null; image_count: number | null }>(
    'select action, member_id, field_names, image_count from audit_events where verification_id = $1 order by created_at',
    [verificationId],
  );

describe('GET /v1/console/verifications', () => {
  it('covers every environment the seat holds by default, mode narrows, a seat lacking the environment gets an empty list', async () => {
    const sandboxV = await createVerification(server, account, 'sandbox');
    const liveV = await createVerification(server, account, 'live');
    const all = (await server.request('/v1/console/verifications?limit=100', { token: owner })).body.data;
    expect(all.map((v: { id: string }) => v.id)).toEqual(expect.arrayContaining([sandboxV.id, liveV.id]));
    expect(all.find((v: { id: string }) => v.id === liveV.id)).toMatchObject({ mode: 'live', decided_by: null });
    const live = (
      await server.request('/v1/console/verifications?mode=live&limit=100', { token: owner })
    ).body.data.map((v: { id: string }) => v.id);
    expect(live).toContain(liveV.id);
    expect(live).not.toContain(sandboxV.id);
    const sandboxSeat = await signedInMember(server, account, [], ['sandbox']);
    expect(
      (await server.request('/v1/console/verifications?mode=live', { token: sandboxSeat.token })).body.data,
    ).toEqual([]);
    expect((await server.request(`/v1/console/verifications/${liveV.id}`, { token: sandboxSeat.token })).status).toBe(
      404,
    );
    const other = await server.bootstrap();
    expect(
      (await server.request(`/v1/console/verifications/${sandboxV.id}`, { token: other.member.session_token })).status,
    ).toBe(404);
  });

  it('decided_by names the reviewer or the key that decided, and is null for the engine', async () => {
    const engine = await createVerification(server, account, 'sandbox', { sandbox: { outcome: 'approved' } });
    expect((await settledStatus(engine.id)).decided_by).toBeNull();
    for (const via of ['member', 'api_key'] as const) {
      const v = await createVerification(server, account, 'sandbox', { sandbox: { outcome: 'review' } });
      await settledStatus(v.id);
      const [review] = await server.sql<{ id: string }>('select id from manual_reviews where verification_id = $1', [
        v.id,
      ]);
      const decided =
        via === 'member'
          ? await server.request(`/v1/console/reviews/${review!.id}/decision`, {
              token: owner,
              body: { decision: 'approve' },
            })
          : await server.request(`/v1/manual-reviews/${review!.id}/decision`, {
              token: account.keys.sandbox.secret_key,
              body: { decision: 'approve' },
            });
      expect(decided.status).toBe(200);
      const read = (await server.request(`/v1/console/verifications/${v.id}`, { token: owner })).body;
      expect(read.decided_by).toEqual({
        type: via,
        id: via === 'member' ? account.member.id : account.keys.sandbox.id,
      });
    }
  });
});

describe('console case filters and decided_by on both surfaces', () => {
  it('tag narrows the list to verifications carrying it (REST tag, GraphQL tagId); GraphQL decidedBy matches REST decided_by', async () => {
    const key = account.keys.sandbox.secret_key;
    const tagged = await createVerification(server, account, 'sandbox', { sandbox: { outcome: 'review' } });
    const untagged = await createVerification(server, account, 'sandbox', { sandbox: { outcome: 'pending' } });
    const tag = await server.request('/v1/tags', {
      token: key,
      body: { name: `Console filter ${Date.now()}`, color: 'blue' },
    });
    expect(
      (await server.request(`/v1/verifications/${tagged.id}/tags`, { token: key, body: { tags: [tag.body.id] } }))
        .status,
    ).toBe(200);
    const rest = (
      await server.request(`/v1/console/verifications?tag=${tag.body.id}&limit=100`, { token: owner })
    ).body.data.map((v: { id: string }) => v.id);
    expect(rest).toEqual([tagged.id]);
    expect(rest).not.toContain(untagged.id);
    const bad = await server.request('/v1/console/verifications?tag=nope', { token: owner });
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe('tag');
    const other = await server.bootstrap();
    expect(
      (await server.request(`/v1/console/verifications?tag=${tag.body.id}`, { token: other.member.session_token })).body
        .data,
    ).toEqual([]);
    await settledStatus(tagged.id);
    const [review] = await server.sql<{ id: string }>('select id from manual_reviews where verification_id = $1', [
      tagged.id,
    ]);
    expect(
      (
        await server.request(`/v1/console/reviews/${review!.id}/decision`, {
          token: owner,
          body: { decision: 'reject' },
        })
      ).status,
    ).toBe(200);
    const gqlPage = await gql(server, owner, ConsoleCasesDocument, { filter: { tagId: tag.body.id }, first: 50 });
    expect(gqlPage.body.errors).toBeUndefined();
    expect(gqlPage.body.data!.verifications.nodes).toEqual([
      {
        id: tagged.id,
        status: 'rejected',
        mode: 'sandbox',
        decidedBy: { type: 'member', id: account.member.id },
        tags: [{ id: tag.body.id }],
      },
    ]);
    const restOne = (await server.request(`/v1/console/verifications/${tagged.id}`, { token: owner })).body;
    expect(restOne.decided_by).toEqual({ type: 'member', id: account.member.id });
  });
});

describe('identity and evidence reveal (verifications.reveal, audited)', () => {
  it('reveals the fields read off the document and writes an audit row naming the member and field names, never values', async () => {
    const v = await createVerification(server, account, 'sandbox', {
      applicant: { email: 'reveal-me@example.com' },
      sandbox: { outcome: 'approved' },
    });
    await settledStatus(v.id);
    const without = await signedInMember(server, account, ['logs.read']);
    const refused = await server.request(`/v1/console/verifications/${v.id}/identity`, { token: without.token });
    expect(refused.status).toBe(403);
    expect(await audits(v.id)).toEqual([]);
    const res = await server.request(`/v1/console/verifications/${v.id}/identity`, { token: owner });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ object: 'applicant_data', verification_id: v.id, version: 1 });
    expect(res.body.fields).toMatchObject({ email: 'reveal-me@example.com', document_type: 'passport' });
    const [row] = await audits(v.id);
    expect(row).toMatchObject({ action: 'identity.revealed', member_id: account.member.id });
    expect(row!.field_names!.sort()).toEqual(Object.keys(res.body.fields).sort());
    expect(JSON.stringify(row)).not.toContain('reveal-me');
    const trail = await server.request('/v1/console/audit?limit=100', { token: without.token });
    expect(trail.body.data.find((a: { verification_id: string }) => a.verification_id === v.id)).toMatchObject({
      object: 'audit_event',
      action: 'identity.revealed',
    });
  });

  it('fields is null when nothing is held; held but unreadable is 500 IDENTITY_UNREADABLE, never an empty answer', async () => {
    const purged = await createVerification(server, account, 'sandbox');
    await server.sql('update verifications set identity = null where id = $1', [purged.id]);
    expect(
      (await server.request(`/v1/console/verifications/${purged.id}/identity`, { token: owner })).body.fields,
    ).toBeNull();
    const broken = await createVerification(server, account, 'sandbox', { applicant: { email: 'broken@example.com' } });
    await server.sql(`update verifications set identity = 'v1.AAAA.BBBB.CCCC' where id = $1`, [broken.id]);
    const res = await server.request(`/v1/console/verifications/${broken.id}/identity`, { token: owner });
    expect(res.status).toBe(500);
    expect(res.body.error).toMatchObject({ type: 'api_error', code: 'IDENTITY_UNREADABLE' });
  });

  it('the audit trail is append-only: the database refuses to change or delete a row', async () => {
    const v = await createVerification(server, account, 'sandbox');
    await server.request(`/v1/console/verifications/${v.id}/identity`, { token: owner });
    await expect(
      server.sql(`update audit_events set member_id = 'mem_x' where verification_id = $1`, [v.id]),
    ).rejects.toThrow(/append-only/);
    await expect(server.sql('delete from audit_events where verification_id = $1', [v.id])).rejects.toThrow(
      /append-only/,
    );
  });

  it('evidence URLs live two minutes and the view is audited with the number of images', async () => {
    const v = await createVerification(server, account, 'sandbox');
    const sk = account.keys.sandbox.secret_key;
    const created = await server.request(`/v1/verifications/${v.id}/uploads`, {
      token: sk,
      body: { kind: 'document', side: 'front', content_type: 'image/png' },
    });
    expect(created.status).toBe(201);
    const put = await fetch(created.body.upload_url, {
      method: 'PUT',
      body: new Uint8Array(pngBytes()),
      headers: { 'content-type': 'image/png', connection: 'close' },
    });
    expect(put.status).toBe(200);
    expect(
      (
        await server.request(`/v1/verifications/${v.id}/uploads/${created.body.upload_id}/complete`, {
          token: sk,
          method: 'POST',
        })
      ).status,
    ).toBe(200);
    const res = await server.request(`/v1/console/verifications/${v.id}/evidence`, { token: owner });
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(1);
    expect(res.body.data[0]).toMatchObject({ object: 'evidence', kind: 'document', url_expires_in: 120 });
    expect(new URL(res.body.data[0].url).searchParams.get('X-Amz-Expires')).toBe('120');
    expect(await audits(v.id)).toEqual([
      expect.objectContaining({ action: 'evidence.viewed', image_count: 1, field_names: null }),
    ]);
  });
});

describe('GraphQL reveals and trails (same services as the console routes)', () => {
  it('revealIdentity and evidence need verifications.reveal and are audited; auditEvents and activity read the trails', async () => {
    const v = await createVerification(server, account, 'sandbox', { applicant: { email: 'gql-reveal@example.com' } });
    const without = await signedInMember(server, account, ['logs.read']);
    const refused = await gql(server, without.token, RevealIdentityDocument, { verificationId: v.id });
    expect(refused.body.errors![0].extensions).toMatchObject({ code: 'INSUFFICIENT_PERMISSIONS' });
    const revealed = await gql(server, owner, RevealIdentityDocument, { verificationId: v.id });
    expect(revealed.body.data!.revealIdentity).toMatchObject({
      verificationId: v.id,
      version: 1,
      fields: { email: 'gql-reveal@example.com' },
    });
    const images = await gql(server, owner, EvidenceDocument, { verificationId: v.id });
    expect(images.body.data!.evidence).toEqual([]);
    const trail = await gql(server, without.token, AuditEventsDocument, { first: 50 });
    const mine = trail.body
      .data!.auditEvents.nodes.filter((a) => a.verificationId === v.id)
      .map((a) => [a.action, a.imageCount]);
    expect(mine.sort()).toEqual(
      [
        ['evidence.viewed', 0],
        ['identity.revealed', null],
      ].sort(),
    );
    const activity = await gql(server, owner, ActivityDocument, { first: 5 });
    expect(activity.body.errors).toBeUndefined();
    const other = await server.bootstrap();
    const foreign = await gql(server, other.member.session_token, RevealIdentityDocument, { verificationId: v.id });
    expect(foreign.body.errors![0].extensions).toMatchObject({ type: 'not_found_error' });
  });
});
