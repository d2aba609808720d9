// Bad input never gives a 500, on either surface; read-only means writes only; members cannot mint identity access they lack.
import type { BootstrapResult } from '../../src/services/access/index.js';
import { ApiKeysDocument, CreateApiKeyDocument } from '../graphql/generated.js';
import { gql } from '../support/graphql.js';
import type { TestServer } from '../support/test-server.js';
import { withTestAccount } from '../support/account.js';
import { signedInMember } from '../support/members.js';

let server: TestServer;
let account: BootstrapResult;
withTestAccount((t) => ({ server, account } = t));

const sandboxKey = () => account.keys.sandbox.secret_key;

describe('a NUL character is bad input, never a 500', () => {
  it('in a JSON body field: 400 PARAMETER_INVALID naming the field, nothing written', async () => {
    const before = (await server.request('/v1/api-keys?limit=100', { token: sandboxKey() })).body.data.length;
    const res = await server.request('/v1/api-keys', {
      token: sandboxKey(),
      body: { name: 'a\u0000b', environment: 'sandbox' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: 'invalid_request_error', code: 'PARAMETER_INVALID', param: 'name' });
    expect((await server.request('/v1/api-keys?limit=100', { token: sandboxKey() })).body.data).toHaveLength(before);
  });

  it('nested in the body: the param is the dotted path', async () => {
    const res = await server.request('/v1/verifications', {
      token: sandboxKey(),
      body: { applicant: { reference_id: 'x\u0000' } },
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'PARAMETER_INVALID', param: 'applicant.reference_id' });
  });

  it('in a query parameter', async () => {
    const res = await server.request('/v1/verifications?email=a%00b@example.com', { token: sandboxKey() });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'PARAMETER_INVALID', param: 'email' });
  });

  it('in the console sign-in email', async () => {
    const res = await server.request('/v1/console/sessions', {
      body: { email: 'a\u0000@example.com', password: 'whatever-password' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'PARAMETER_INVALID', param: 'email' });
  });

  it('in a GraphQL variable: extensions.code PARAMETER_INVALID, not INTERNAL_ERROR', async () => {
    const res = await gql(server, account.member.session_token, CreateApiKeyDocument, {
      input: { name: 'a\u0000b', environment: 'sandbox' as never },
    });
    expect(res.body.errors?.[0].extensions).toMatchObject({
      code: 'PARAMETER_INVALID',
      type: 'invalid_request_error',
      param: 'variables.input.name',
    });
  });

  it('as a \\u0000 escape in a GraphQL string literal', async () => {
    const res = await server.graphql(
      account.member.session_token,
      'mutation { createApiKey(input: {name: "a\\u0000b", environment: sandbox}) { secretKey } }',
    );
    expect(res.body.errors?.[0].extensions).toMatchObject({ code: 'PARAMETER_INVALID', param: 'query' });
  });
});

describe('malformed identifiers on GraphQL are bad input', () => {
  it('apiKeys(after: "not-a-uuid") answers PARAMETER_INVALID, not INTERNAL_ERROR', async () => {
    const res = await gql(server, account.member.session_token, ApiKeysDocument, { first: 5, after: 'not-a-uuid' });
    expect(res.body.errors?.[0].extensions).toMatchObject({ code: 'PARAMETER_INVALID', type: 'invalid_request_error' });
  });
});

describe('read-only keys', () => {
  it('HEAD is a read: a read-only key gets 200 on HEAD of a GET route, and 403 READ_ONLY_KEY on a write', async () => {
    const minted = await server.request('/v1/api-keys', {
      token: sandboxKey(),
      body: { name: 'ro', environment: 'sandbox', access: 'read_only' },
    });
    expect(minted.status).toBe(201);
    const readOnly = minted.body.secret_key;
    expect((await server.request('/v1/merchant', { token: readOnly, method: 'HEAD' })).status).toBe(200);
    const write = await server.request('/v1/tags', { token: readOnly, body: { name: 'x' } });
    expect(write.status).toBe(403);
    expect(write.body.error.code).toBe('READ_ONLY_KEY');
  });
});

describe('members minting keys', () => {
  it('a member without verifications.reveal cannot mint a key holding applicant:read; one holding it can', async () => {
    const without = (await signedInMember(server, account, ['logs.read', 'keys.manage'])).token;
    const refused = await gql(server, without, CreateApiKeyDocument, {
      input: { name: 'reader', environment: 'sandbox' as never, permissions: ['verification:read', 'applicant:read'] },
    });
    expect(refused.body.errors?.[0].extensions).toMatchObject({
      code: 'INSUFFICIENT_PERMISSIONS',
      type: 'permission_error',
    });
    const plain = await gql(server, without, CreateApiKeyDocument, {
      input: { name: 'plain', environment: 'sandbox' as never, permissions: ['verification:read'] },
    });
    expect(plain.body.errors).toBeUndefined();
    const withReveal = (await signedInMember(server, account, ['verifications.reveal', 'keys.manage'])).token;
    const allowed = await gql(server, withReveal, CreateApiKeyDocument, {
      input: { name: 'reader', environment: 'sandbox' as never, permissions: ['verification:read', 'applicant:read'] },
    });
    expect(allowed.body.errors).toBeUndefined();
    expect(allowed.body.data?.createApiKey.apiKey.permissions).toEqual(['verification:read', 'applicant:read']);
  });
});

describe('pagination default', () => {
  it('without limit a page holds 20 rows, has_more is true and next_cursor is the last id', async () => {
    const fresh = await server.bootstrap();
    for (let i = 0; i < 21; i++) {
      expect(
        (
          await server.request('/v1/api-keys', {
            token: fresh.keys.sandbox.secret_key,
            body: { name: `k${i}`, environment: 'sandbox' },
          })
        ).status,
      ).toBe(201);
    }
    const page = await server.request('/v1/api-keys', { token: fresh.keys.sandbox.secret_key });
    expect(page.body.data).toHaveLength(20);
    expect(page.body.has_more).toBe(true);
    expect(page.body.next_cursor).toBe(page.body.data[19].id);
  });
});
