import type { BootstrapResult } from '../../src/services/access/index.js';
import { EditIdentityDocument } from '../graphql/generated.js';
import { gql } from '../support/graphql.js';
import type { TestServer } from '../support/test-server.js';
import { withTestAccount } from '../support/account.js';
import { signedInMember } from '../support/members.js';
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
const DOCUMENT = {
  number: 'P1234567',
  first_name: 'Ada',
  last_name: 'Lovelace',
  date_of_birth: '1985-12-10',
  type: 'passport',
  issuing_country: 'GBR',
  expiry_date: '2035-01-01',
};

async function approvedCase() {
  const n = ++seq;
  const v = await createVerification(server, account, 'sandbox', {
    applicant: { email: `ada-${Date.now()}-${n}@example.com` },
    sandbox: { outcome: 'approved', document: { ...DOCUMENT, number: `P${Date.now() % 1e7}${n}` } },
  });
  await waitFor(
    async () =>
      (await server.request(`/v1/console/verifications/${v.id}`, { token: owner })).body.status === 'approved',
    15_000,
    'approval',
  );
  return v.id;
}

const edit = (id: string, body: unknown, token = owner) =>
  server.request(`/v1/console/verifications/${id}/identity`, { method: 'PATCH', token, body });
const dataUpdated = (id: string) =>
  server.sql<{ payload: Record<string, unknown> }>(
    `select payload from events where verification_id = $1 and type = 'verification.data_updated' order by created_at`,
    [id],
  );

describe('PATCH /v1/console/verifications/{id}/identity', () => {
  it('stores a new version, sets identity_edited_at, emits data_updated with names and version only, and never changes status or verdict', async () => {
    const id = await approvedCase();
    const before = (await server.request(`/v1/verifications/${id}`, { token: account.keys.sandbox.secret_key })).body;
    const res = await edit(id, {
      fields: { last_name: 'King', date_of_birth: '1815-12-10', first_name: 'Ada' },
      version: 1,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      object: 'identity_edit',
      verification_id: id,
      version: 2,
      changed_fields: ['last_name', 'date_of_birth'],
    });
    expect(JSON.stringify(res.body)).not.toContain('King');
    const after = (await server.request(`/v1/verifications/${id}`, { token: account.keys.sandbox.secret_key })).body;
    expect(after).toMatchObject({
      status: before.status,
      verdict: before.verdict,
      score: before.score,
      identity_version: 2,
    });
    expect(Date.parse(after.identity_edited_at)).toBeGreaterThan(Date.parse(before.created_at) - 1);
    const events = await dataUpdated(id);
    expect(events).toHaveLength(1);
    expect(events[0]!.payload).toMatchObject({ changed_fields: ['last_name', 'date_of_birth'], version: 2 });
    expect(JSON.stringify(events[0]!.payload)).not.toMatch(/King|1815/);
    // include=applicant (a key holding applicant:read) reads the new version.
    const reader = await server.request('/v1/api-keys', {
      token: account.keys.sandbox.secret_key,
      body: { name: 'reader', environment: 'sandbox', permissions: ['verification:read', 'applicant:read'] },
    });
    expect(reader.status).toBe(201);
    const read = await server.request(`/v1/verifications/${id}?include=applicant`, { token: reader.body.secret_key });
    expect(read.body.applicant).toMatchObject({
      version: 2,
      fields: {
        last_name: 'King',
        date_of_birth: '1815-12-10',
        first_name: 'Ada',
        document_number: expect.stringMatching(/^P\d+$/),
      },
    });
    // Both versions are kept, each with its own fingerprints; the verification's own (what was read) did not move.
    const versions = await server.sql<{ version: number; edited_by: string | null; identity: string }>(
      'select version, edited_by, identity from identity_versions where verification_id = $1 order by version',
      [id],
    );
    expect(versions.map((r) => [r.version, r.edited_by])).toEqual([
      [1, null],
      [2, account.member.id],
    ]);
    expect(versions.map((r) => r.identity).join()).not.toContain('King');
    const audit = await server.sql<{ field_names: string[] }>(
      `select field_names from audit_events where verification_id = $1 and action = 'identity.edited'`,
      [id],
    );
    expect(audit).toEqual([{ field_names: ['last_name', 'date_of_birth'] }]);
    const activity = await server.sql<{ surface: string }>(
      `select surface from activity_events where target_id = $1 and action = 'identity.edited'`,
      [id],
    );
    expect(activity).toEqual([{ surface: 'console' }]);
  });

  it('edits address, one of the applicant.fields keys (decisions.md), and reveals it; a too-long address is refused with its param', async () => {
    const id = await approvedCase();
    const res = await edit(id, { fields: { address: '12 Analytical Row, London' }, version: 1 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ version: 2, changed_fields: ['address'] });
    const revealed = await server.request(`/v1/console/verifications/${id}/identity`, { token: owner });
    expect(revealed.body.fields).toMatchObject({ address: '12 Analytical Row, London' });
    const tooLong = await edit(id, { fields: { address: 'x'.repeat(501) }, version: 2 });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.error).toMatchObject({ type: 'invalid_request_error', param: 'fields.address' });
  });

  it('a stale version is 409 STALE_VERSION with current_version and applies nothing; of parallel edits on one version exactly one applies', async () => {
    const id = await approvedCase();
    const results = await Promise.all(
      ['Byron', 'Babbage', 'Somerville', 'Herschel'].map((last_name) =>
        edit(id, { fields: { last_name }, version: 1 }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 409, 409, 409]);
    const stale = results.find((r) => r.status === 409)!;
    expect(stale.body.error).toMatchObject({
      type: 'invalid_request_error',
      code: 'STALE_VERSION',
      param: 'version',
      detail: { current_version: 2 },
    });
    expect(await dataUpdated(id)).toHaveLength(1);
    expect(
      (
        await server.sql<{ identity_version: number }>('select identity_version from verifications where id = $1', [id])
      )[0]!.identity_version,
    ).toBe(2);
    const next = await edit(id, { fields: { last_name: null }, version: 2 });
    expect(next.body).toMatchObject({ version: 3, changed_fields: ['last_name'] });
    const revealed = await server.request(`/v1/console/verifications/${id}/identity`, { token: owner });
    expect(revealed.body.version).toBe(3);
    expect(revealed.body.fields).not.toHaveProperty('last_name');
  });

  it('refuses bad input with the field named, a member without verifications.reveal, and other accounts (404)', async () => {
    const id = await approvedCase();
    const cases: [unknown, string][] = [
      [{ fields: { date_of_birth: '1815-13-45' }, version: 1 }, 'fields.date_of_birth'],
      [{ fields: { favourite_colour: 'blue' }, version: 1 }, 'fields.favourite_colour'],
      [{ fields: {}, version: 1 }, 'fields'],
      [{ fields: { last_name: 'X' } }, 'version'],
      [{ fields: { nationality: 'Narnia' }, version: 1 }, 'fields.nationality'],
    ];
    for (const [body, param] of cases) {
      const res = await edit(id, body);
      expect(res.status).toBe(400);
      expect(res.body.error.param).toBe(param);
    }
    const plain = (await signedInMember(server, account, ['logs.read'])).token;
    const refused = await edit(id, { fields: { last_name: 'X' }, version: 1 }, plain);
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('INSUFFICIENT_PERMISSIONS');
    const other = await server.bootstrap();
    expect((await edit(id, { fields: { last_name: 'X' }, version: 1 }, other.member.session_token)).status).toBe(404);
    expect(await dataUpdated(id)).toHaveLength(0);
  });

  it('repeat control matches the fingerprints an edit added, and still those of what was read', async () => {
    const id = await approvedCase();
    const [{ email: original }] = [
      (await server.request(`/v1/console/verifications/${id}/identity`, { token: owner })).body.fields,
    ];
    const corrected = `corrected-${Date.now()}@example.com`;
    expect((await edit(id, { fields: { email: corrected }, version: 1 })).status).toBe(200);
    for (const address of [corrected, original]) {
      const repeat = await server.request('/v1/verifications', {
        token: account.keys.sandbox.secret_key,
        body: { applicant: { email: address }, sandbox: { outcome: 'approved' } },
      });
      expect(repeat.status).toBe(409);
      expect(repeat.body.error).toMatchObject({
        code: 'ALREADY_VERIFIED',
        detail: { verification_id: id, matched_on: 'email' },
      });
    }
  });

  it('GraphQL editIdentity applies through the same service (activity surface graphql)', async () => {
    const id = await approvedCase();
    const res = await gql(server, owner, EditIdentityDocument, {
      verificationId: id,
      fields: { first_name: 'Augusta' },
      version: 1,
    });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data!.editIdentity).toMatchObject({
      verificationId: id,
      version: 2,
      changedFields: ['first_name'],
    });
    const stale = await gql(server, owner, EditIdentityDocument, {
      verificationId: id,
      fields: { first_name: 'Ada' },
      version: 1,
    });
    expect(stale.body.errors![0]!.extensions).toMatchObject({ code: 'STALE_VERSION' });
    const activity = await server.sql<{ surface: string }>(
      `select surface from activity_events where target_id = $1 and action = 'identity.edited'`,
      [id],
    );
    expect(activity).toEqual([{ surface: 'graphql' }]);
  });
});
