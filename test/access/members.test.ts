import pg from 'pg';
import { createHash } from 'node:crypto';
import { systemFork } from '../../src/orm.js';
import { createMember, type BootstrapResult } from '../../src/services/access/index.js';
import type { TestServer } from '../support/test-server.js';
import { withTestAccount } from '../support/account.js';

let server: TestServer;
let account: BootstrapResult;
withTestAccount((t) => ({ server, account } = t));

const signIn = (email: string, password: string) =>
  server.request('/v1/console/sessions', { body: { email, password } });

async function query(sql: string, params: unknown[]) {
  const client = new pg.Client({ connectionString: server.databaseUrl });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows;
  } finally {
    await client.end();
  }
}

describe('team member sessions', () => {
  it('signs in with email and password, returns {token, expires_at} 12 hours ahead, stores the token hashed', async () => {
    const res = await signIn(account.member.email.toUpperCase(), account.member.password);
    expect(res.status).toBe(201);
    expect(res.body.token).toMatch(/^mst_/);
    const hours = (Date.parse(res.body.expires_at) - Date.now()) / 3600_000;
    expect(hours).toBeGreaterThan(11.9);
    expect(hours).toBeLessThanOrEqual(12);
    const rows = await query('select token_hash from member_sessions where token_hash = $1', [
      createHash('sha256').update(res.body.token).digest('hex'),
    ]);
    expect(rows).toHaveLength(1);
  });

  it('stores passwords with scrypt, never in clear', async () => {
    const [row] = await query('select password_hash from members where id = $1', [account.member.id]);
    expect(row.password_hash).toMatch(/^scrypt\$/);
    expect(row.password_hash).not.toContain(account.member.password);
  });

  it('answers a wrong password and an unknown email alike with 401 INVALID_CREDENTIALS', async () => {
    const wrong = await signIn(account.member.email, 'not-the-password');
    const unknown = await signIn('nobody@example.com', 'whatever-password');
    for (const res of [wrong, unknown]) {
      expect(res.status).toBe(401);
      expect(res.body.error).toMatchObject({ type: 'authentication_error', code: 'INVALID_CREDENTIALS' });
    }
  });

  it('signs out with DELETE /v1/console/sessions/current; the token then answers 401', async () => {
    const { body } = await signIn(account.member.email, account.member.password);
    const out = await server.request('/v1/console/sessions/current', { token: body.token, method: 'DELETE' });
    expect(out.status).toBe(200);
    const after = await server.request('/graphql', {
      token: body.token,
      body: { query: '{ viewer { environments } }' },
    });
    expect(after.status).toBe(401);
  });

  it('refuses a secret key on /v1/console/* and /graphql, and a member token on key endpoints', async () => {
    const key = account.keys.sandbox.secret_key;
    const consoleRes = await server.request('/v1/console/sessions/current', { token: key, method: 'DELETE' });
    expect(consoleRes.status).toBe(401);
    expect(consoleRes.body.error.type).toBe('authentication_error');
    const graphqlRes = await server.request('/graphql', { token: key, body: { query: '{ viewer { environments } }' } });
    expect(graphqlRes.status).toBe(401);
    expect(graphqlRes.body.errors[0].extensions).toMatchObject({
      code: 'SESSION_INVALID',
      type: 'authentication_error',
    });
    const keyRes = await server.request('/v1/merchant', { token: account.member.session_token });
    expect(keyRes.status).toBe(401);
  });

  it('validates sign-in input', async () => {
    const res = await server.request('/v1/console/sessions', { body: { email: 'a@b.c' } });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'PARAMETER_MISSING', param: 'password' });
  });

  it('a member holds only the environments of its seat', async () => {
    const member = await createMember(systemFork(server.runtime.orm), {
      merchantId: account.merchant.id,
      email: `sandbox-only-${Date.now()}@example.com`,
      name: 'Sandbox only',
      password: 'a-long-enough-password',
      // keys.manage: minting is allowed, so what refuses the live key below is the seat's environments.
      permissions: ['logs.read', 'keys.manage'],
      environments: ['sandbox'],
    });
    const { body } = await signIn(member.email, 'a-long-enough-password');
    const res = await server.graphql(
      body.token,
      '{ viewer { environments member { permissions } } apiKeys(first: 100) { nodes { environment } } }',
    );
    expect(res.body.data.viewer).toEqual({
      environments: ['sandbox'],
      member: { permissions: ['logs.read', 'keys.manage'] },
    });
    expect(res.body.data.apiKeys.nodes.every((k: { environment: string }) => k.environment === 'sandbox')).toBe(true);
    const liveOnly = await server.graphql(body.token, '{ apiKeys(environment: live) { nodes { id } } }');
    expect(liveOnly.body.data.apiKeys.nodes).toEqual([]);
    const mint = await server.graphql(
      body.token,
      'mutation { createApiKey(input: {name: "x", environment: live}) { secretKey } }',
    );
    expect(mint.body.errors![0].extensions).toMatchObject({ code: 'ENVIRONMENT_NOT_HELD', type: 'permission_error' });
  });
});
