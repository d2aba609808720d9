import type { Mode } from '../../src/config.js';
import { Verification } from '../../src/entities/verification.entity.js';
import { scopedFork } from '../../src/orm.js';
import type { BootstrapResult } from '../../src/services/access/index.js';
import { tagReferencesFor } from '../../src/services/catalog/index.js';
import { linkApplicantAfterFaceMatch } from '../../src/services/verifications/index.js';
import { ApplicantDocument, ApplicantsDocument, TagApplicantDocument } from '../graphql/generated.js';
import { gql } from '../support/graphql.js';
import type { TestServer } from '../support/test-server.js';
import { withTestAccount } from '../support/account.js';
import { createVerification } from '../support/factories.js';

let server: TestServer;
let account: BootstrapResult;
let other: BootstrapResult;
let sandbox: string;

withTestAccount(async (t) => {
  ({ server, account, sandbox } = t);
  other = await server.bootstrap();
});

const fork = (merchantId: string, mode: Mode = 'sandbox') =>
  scopedFork(server.runtime.orm, { merchantId, modes: [mode] });

/** What the engine does when face_match approves: link (or create) the applicant in its transaction. */
async function faceMatched(
  merchantId: string,
  verificationId: string,
  fingerprint: string | null,
  mode: Mode = 'sandbox',
): Promise<string> {
  return fork(merchantId, mode).transactional(async (tx) => {
    const v = await tx.findOneOrFail(Verification, { id: verificationId });
    const applicant = await linkApplicantAfterFaceMatch(tx, v, fingerprint);
    return applicant!.id;
  });
}

const fingerprint = () => `fp_${Math.random().toString(36).slice(2)}`;
const tagApplicant = (id: string, body: Record<string, unknown>, token = sandbox) =>
  server.request(`/v1/applicants/${id}/tags`, { token, body });

describe('linkApplicantAfterFaceMatch', () => {
  it('creates an applicant once a face has been matched and links the same person on a later verification', async () => {
    const fp = fingerprint();
    const v1 = (await createVerification(server, account)).id;
    const first = await faceMatched(account.merchant.id, v1, fp);
    expect(first).toMatch(/^app_/);
    const v2 = (await createVerification(server, account)).id;
    expect(await faceMatched(account.merchant.id, v2, fp)).toBe(first);
    const rows = await server.sql(`select id, applicant_id from verifications where id in ($1, $2)`, [v1, v2]);
    expect(rows.map((r) => r.applicant_id)).toEqual([first, first]);
    expect((await server.request(`/v1/applicants/${first}`, { token: sandbox })).body.has_identity_link).toBe(true);
  });

  it('makes a new applicant without identity link when no person fingerprint is known, and never matches across accounts', async () => {
    const v1 = (await createVerification(server, account)).id;
    const v2 = (await createVerification(server, account)).id;
    const a = await faceMatched(account.merchant.id, v1, null);
    const b = await faceMatched(account.merchant.id, v2, null);
    expect(a).not.toBe(b);
    expect((await server.request(`/v1/applicants/${a}`, { token: sandbox })).body.has_identity_link).toBe(false);

    const fp = fingerprint();
    const mine = await faceMatched(account.merchant.id, (await createVerification(server, account)).id, fp);
    const theirs = await faceMatched(other.merchant.id, (await createVerification(server, other)).id, fp);
    const live = await faceMatched(
      account.merchant.id,
      (await createVerification(server, account, 'live')).id,
      fp,
      'live',
    );
    expect(new Set([mine, theirs, live]).size).toBe(3);
  });

  it('applies a tag on an applicant to the person at their next verification, with verification.tag_added', async () => {
    const fp = fingerprint();
    const applicant = await faceMatched(account.merchant.id, (await createVerification(server, account)).id, fp);
    const tagged = await tagApplicant(applicant, { names: ['Watchlist', 'Gone'] });
    const [watchlist, gone] = tagged.body.data;
    await server.request(`/v1/tags/${gone.id}`, { token: sandbox, method: 'DELETE' });

    const next = (await createVerification(server, account)).id;
    await faceMatched(account.merchant.id, next, fp);
    const refs = await tagReferencesFor(
      { merchantId: account.merchant.id, modes: ['sandbox'], runtime: server.runtime },
      [next],
    );
    expect(refs.get(next)).toEqual([{ id: watchlist.id, name: 'Watchlist', color: 'slate' }]);
    const events = await server.sql(
      `select type, payload from events where verification_id = $1 and type = 'verification.tag_added'`,
      [next],
    );
    expect(events).toHaveLength(1);
    expect(events[0].payload.tag).toEqual({ id: watchlist.id, name: 'Watchlist', color: 'slate' });

    await faceMatched(account.merchant.id, next, fp);
    expect(
      await server.sql(`select 1 from events where verification_id = $1 and type = 'verification.tag_added'`, [next]),
    ).toHaveLength(1);
  });
});

describe('GET /v1/applicants', () => {
  it('lists applicants newest first with an app_ cursor and shows no identity data', async () => {
    const isolated = await server.bootstrap();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++)
      ids.push(await faceMatched(isolated.merchant.id, (await createVerification(server, isolated)).id, fingerprint()));
    const token = isolated.keys.sandbox.secret_key;
    const first = await server.request('/v1/applicants?limit=2', { token });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ object: 'list', has_more: true, next_cursor: ids[1] });
    expect(first.body.data.map((a: { id: string }) => a.id)).toEqual([ids[2], ids[1]]);
    for (const row of first.body.data)
      expect(Object.keys(row).sort()).toEqual(['created_at', 'has_identity_link', 'id', 'object', 'updated_at']);
    const next = await server.request(`/v1/applicants?limit=2&starting_after=${ids[1]}`, { token });
    expect(next.body.data.map((a: { id: string }) => a.id)).toEqual([ids[0]]);
    expect((await server.request('/v1/applicants', { token: isolated.keys.live.secret_key })).body.data).toEqual([]);
  });

  it('GET /v1/applicants/{id} returns non-sensitive metadata only', async () => {
    const fp = fingerprint();
    const id = await faceMatched(account.merchant.id, (await createVerification(server, account)).id, fp);
    const res = await server.request(`/v1/applicants/${id}`, { token: sandbox });
    expect(res.body).toEqual({
      id,
      object: 'applicant',
      has_identity_link: true,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(JSON.stringify(res.body)).not.toContain(fp);
  });

  it('answers 404 for an applicant of another account or of the other environment', async () => {
    const foreign = await faceMatched(other.merchant.id, (await createVerification(server, other)).id, fingerprint());
    const live = await faceMatched(
      account.merchant.id,
      (await createVerification(server, account, 'live')).id,
      fingerprint(),
      'live',
    );
    for (const id of [foreign, live, 'app_unknown', 'vs_x']) {
      const res = await server.request(`/v1/applicants/${id}`, { token: sandbox });
      expect(res.status).toBe(404);
      expect(res.body.error.type).toBe('not_found_error');
      expect((await tagApplicant(id, { names: ['x'] })).status).toBe(404);
      expect(
        (await server.request(`/v1/applicants/${id}/tags/tag_x`, { token: sandbox, method: 'DELETE' })).status,
      ).toBe(404);
    }
    expect((await server.request(`/v1/applicants/${live}`, { token: account.keys.live.secret_key })).status).toBe(200);
  });
});

describe('POST /v1/applicants/{id}/tags', () => {
  it('is safe to retry, ignores foreign and retired ids, and DELETE takes a tag off', async () => {
    const id = await faceMatched(account.merchant.id, (await createVerification(server, account)).id, fingerprint());
    const foreign = (
      await server.request('/v1/tags', { token: other.keys.sandbox.secret_key, body: { name: 'Theirs' } })
    ).body;
    const retired = (await server.request('/v1/tags', { token: sandbox, body: { name: 'Old applicant tag' } })).body;
    await server.request(`/v1/tags/${retired.id}`, { token: sandbox, method: 'DELETE' });

    const first = await tagApplicant(id, { names: ['VIP'], tags: [foreign.id, retired.id] });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ object: 'list', has_more: false, next_cursor: null });
    expect(first.body.data).toEqual([{ id: expect.stringMatching(/^tag_/), name: 'VIP', color: 'slate' }]);
    const again = await tagApplicant(id, { tags: [first.body.data[0].id], names: ['vip'] });
    expect(again.body.data).toEqual(first.body.data);
    expect(await server.sql('select 1 from applicant_tags where applicant_id = $1', [id])).toHaveLength(1);

    const missing = await tagApplicant(id, {});
    expect(missing.body.error).toMatchObject({ code: 'PARAMETER_MISSING', param: 'tags' });

    const removed = await server.request(`/v1/applicants/${id}/tags/${first.body.data[0].id}`, {
      token: sandbox,
      method: 'DELETE',
    });
    expect(removed.body).toEqual({ id: first.body.data[0].id, object: 'tag', removed: true });
    expect((await tagApplicant(id, { tags: [] })).body.data).toEqual([]);
  });
});

describe('GraphQL (members)', () => {
  it('lists applicants with their waiting tags, reads one, and answers not_found for another account', async () => {
    const isolated = await server.bootstrap();
    const token = isolated.member.session_token;
    const id = await faceMatched(isolated.merchant.id, (await createVerification(server, isolated)).id, fingerprint());
    const tagged = await gql(server, token, TagApplicantDocument, { applicantId: id, names: ['Console VIP'] });
    expect(tagged.body.data?.tagApplicant).toEqual([
      { id: expect.stringMatching(/^tag_/), name: 'Console VIP', color: 'slate' },
    ]);
    const second = await faceMatched(
      isolated.merchant.id,
      (await createVerification(server, isolated)).id,
      fingerprint(),
    );

    const list = await gql(server, token, ApplicantsDocument, { environment: 'sandbox', first: 10 });
    expect(list.body.data?.applicants.nodes.map((a) => a.id)).toEqual([second, id]);
    expect(list.body.data?.applicants.nodes[1].tags.map((t) => t.name)).toEqual(['Console VIP']);
    expect(list.body.data?.applicants.nodes[0].tags).toEqual([]);
    const one = await gql(server, token, ApplicantDocument, { id });
    expect(one.body.data?.applicant).toMatchObject({ id, environment: 'sandbox', hasIdentityLink: true });

    const foreign = await faceMatched(
      account.merchant.id,
      (await createVerification(server, account)).id,
      fingerprint(),
    );
    const denied = await gql(server, token, ApplicantDocument, { id: foreign });
    expect(denied.body.errors?.[0].extensions).toMatchObject({ type: 'not_found_error' });
  });
});
