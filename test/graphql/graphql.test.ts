import fs from 'node:fs';
import { buildSchema, lexicographicSortSchema, printSchema } from 'graphql';
import { buildGraphqlSchema, formatError, SCHEMA_FILE } from '../../src/graphql/apollo.js';
import type { BootstrapResult } from '../../src/services/access/index.js';
import { ApiKeysDocument, CreateApiKeyDocument, RevokeApiKeyDocument, ViewerDocument } from '../graphql/generated.js';
import { gql } from '../support/graphql.js';
import type { TestServer } from '../support/test-server.js';
import { withTestAccount } from '../support/account.js';

let server: TestServer;
let account: BootstrapResult;
let token: string;
withTestAccount((t) => {
  ({ server, account } = t);
  token = account.member.session_token;
});

describe('GraphQL for team members', () => {
  it('viewer returns the member, its merchant and the environments of its seat', async () => {
    const res = await gql(server, token, ViewerDocument);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data?.viewer.member).toMatchObject({ id: account.member.id, email: account.member.email });
    expect(res.body.data?.viewer.merchant.id).toBe(account.merchant.id);
    expect(res.body.data?.viewer.environments.sort()).toEqual(['live', 'sandbox']);
  });

  it('createApiKey and revokeApiKey go through the same service as REST', async () => {
    const created = await gql(server, token, CreateApiKeyDocument, {
      input: { name: 'From console', environment: 'live' },
    });
    const secret = created.body.data!.createApiKey.secretKey;
    expect(secret).toMatch(/^sk_live_/);
    expect(created.body.data!.createApiKey.apiKey).toMatchObject({
      environment: 'live',
      status: 'active',
      permissions: ['verification:create', 'verification:read', 'settings:read'],
    });
    expect((await server.request('/v1/merchant', { token: secret })).status).toBe(200);

    const id = created.body.data!.createApiKey.apiKey.id;
    const revoked = await gql(server, token, RevokeApiKeyDocument, { id });
    expect(revoked.body.data?.revokeApiKey).toMatchObject({ id, status: 'revoked' });
    expect((await server.request('/v1/merchant', { token: secret })).status).toBe(401);

    const rest = await server.request('/v1/api-keys?limit=100', { token: account.keys.live.secret_key });
    expect(rest.body.data.find((k: { id: string }) => k.id === id)).toMatchObject({ status: 'revoked' });
  });

  it('apiKeys is a cursor connection, newest first, per environment', async () => {
    for (const name of ['a', 'b', 'c'])
      await gql(server, token, CreateApiKeyDocument, { input: { name, environment: 'sandbox' } });
    const first = await gql(server, token, ApiKeysDocument, { environment: 'sandbox', first: 2 });
    expect(first.body.data!.apiKeys.nodes.map((k) => k.name)).toEqual(['c', 'b']);
    expect(first.body.data!.apiKeys.pageInfo.hasNextPage).toBe(true);
    const next = await gql(server, token, ApiKeysDocument, {
      environment: 'sandbox',
      first: 2,
      after: first.body.data!.apiKeys.pageInfo.endCursor,
    });
    expect(next.body.data!.apiKeys.nodes.map((k) => k.name)).toEqual(['a', 'Bootstrap sandbox key']);
    const bad = await gql(server, token, ApiKeysDocument, { first: 500 });
    expect(bad.body.errors?.[0].extensions).toMatchObject({
      code: 'PARAMETER_INVALID',
      type: 'invalid_request_error',
      param: 'first',
    });
  });

  it('errors carry extensions.code, extensions.type and the request id', async () => {
    const res = await gql(server, token, CreateApiKeyDocument, {
      input: { name: 'x', environment: 'sandbox', permissions: ['root'] },
    });
    expect(res.body.errors?.[0].extensions).toMatchObject({
      code: 'PARAMETER_INVALID',
      type: 'invalid_request_error',
      param: 'permissions',
      request_id: res.headers.get('x-request-id'),
    });
  });

  it('an unexpected error becomes an opaque api_error without internals', () => {
    const formatted = formatError(
      { message: 'connection refused at 10.0.0.5:5432' },
      new Error('connection refused at 10.0.0.5:5432'),
    );
    expect(formatted.extensions).toEqual({ code: 'INTERNAL_ERROR', type: 'api_error' });
    expect(formatted.message).not.toContain('10.0.0.5');
  });

  it('the committed schema file is the schema the server builds', async () => {
    const built = printSchema(lexicographicSortSchema(await buildGraphqlSchema()));
    const committed = printSchema(lexicographicSortSchema(buildSchema(fs.readFileSync(SCHEMA_FILE, 'utf8'))));
    expect(committed).toBe(built);
  });
});
