import pg from 'pg';
import { createHash } from 'node:crypto';
import type { BootstrapResult } from '../../src/services/access/index.js';
import type { TestServer } from '../support/test-server.js';
import { withTestAccount } from '../support/account.js';

let server: TestServer;
let account: BootstrapResult;
let sandbox: string;
let live: string;

withTestAccount((t) => ({ server, account, sandbox, live } = t));

async function dbRow(id: string) {
  const client = new pg.Client({ connectionString: server.databaseUrl });
  await client.connect();
  try {
    return (await client.query('select * from api_keys where id = $1', [id])).rows[0];
  } finally {
    await client.end();
  }
}

const createKey = (token: string, body: Record<string, unknown>) => server.request('/v1/api-keys', { token, body });

describe('POST /v1/api-keys', () => {
  it('returns the secret exactly once, stores only its SHA-256, and exposes key_prefix (first 12 characters)', async () => {
    const res = await createKey(sandbox, { name: 'Backend', environment: 'sandbox' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      object: 'api_key',
      name: 'Backend',
      environment: 'sandbox',
      status: 'active',
      access: 'read_write',
    });
    const secret: string = res.body.secret_key;
    expect(secret).toMatch(/^sk_test_[0-9A-Za-z]{32}$/);
    expect(res.body.key_prefix).toBe(secret.slice(0, 12));

    const row = await dbRow(res.body.id);
    expect(row.secret_hash).toBe(createHash('sha256').update(secret).digest('hex'));
    expect(JSON.stringify(row)).not.toContain(secret);

    const list = await server.request('/v1/api-keys?limit=100', { token: sandbox });
    const listed = list.body.data.find((k: { id: string }) => k.id === res.body.id);
    expect(listed).toBeDefined();
    expect(listed).not.toHaveProperty('secret_key');
    expect(JSON.stringify(list.body)).not.toContain(secret);
  });

  it('gives the default permission sets: sandbox wider than live, never applicant:read, analytics:read or verification:reopen', async () => {
    const sb = await createKey(sandbox, { name: 'sb', environment: 'sandbox' });
    expect(sb.body.permissions.sort()).toEqual([
      'settings:read',
      'settings:write',
      'verification:create',
      'verification:read',
      'webhook:manage',
    ]);
    const lv = await createKey(live, { name: 'lv', environment: 'live' });
    expect(lv.body.permissions.sort()).toEqual(['settings:read', 'verification:create', 'verification:read']);
    expect(lv.body.secret_key).toMatch(/^sk_live_/);
  });

  it('refuses a key minting a key of the other environment or with scopes it does not hold', async () => {
    const other = await createKey(sandbox, { name: 'x', environment: 'live' });
    expect(other.status).toBe(400);
    expect(other.body.error).toMatchObject({ code: 'PARAMETER_INVALID', param: 'environment' });

    const narrow = await createKey(sandbox, {
      name: 'narrow',
      environment: 'sandbox',
      permissions: ['settings:write'],
    });
    const wider = await createKey(narrow.body.secret_key, {
      name: 'wider',
      environment: 'sandbox',
      permissions: ['applicant:read'],
    });
    expect(wider.status).toBe(403);
    expect(wider.body.error.code).toBe('INSUFFICIENT_PERMISSIONS');
  });

  it('validates with PARAMETER_MISSING, PARAMETER_INVALID and PARAMETER_UNKNOWN naming the param', async () => {
    const missing = await createKey(sandbox, { environment: 'sandbox' });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({
      type: 'invalid_request_error',
      code: 'PARAMETER_MISSING',
      param: 'name',
    });
    const invalid = await createKey(sandbox, { name: 'x', environment: 'staging' });
    expect(invalid.body.error).toMatchObject({ code: 'PARAMETER_INVALID', param: 'environment' });
    const unknownPermission = await createKey(sandbox, { name: 'x', environment: 'sandbox', permissions: ['root'] });
    expect(unknownPermission.body.error).toMatchObject({ code: 'PARAMETER_INVALID', param: 'permissions' });
    const unknown = await createKey(sandbox, { name: 'x', environment: 'sandbox', colour: 'red' });
    expect(unknown.body.error).toMatchObject({ code: 'PARAMETER_UNKNOWN', param: 'colour' });
    const past = await createKey(sandbox, { name: 'x', environment: 'sandbox', expires_at: '2001-01-01T00:00:00Z' });
    expect(past.body.error).toMatchObject({ code: 'PARAMETER_INVALID', param: 'expires_at' });
  });
});

describe('authentication', () => {
  it.each([
    ['missing', undefined, 'API_KEY_MISSING'],
    ['malformed', 'sk_test_short', 'API_KEY_INVALID'],
    ['unknown', `sk_test_${'A'.repeat(32)}`, 'API_KEY_INVALID'],
  ])('answers a %s key with 401 authentication_error', async (_label, token, code) => {
    const res = await server.request('/v1/merchant', { token });
    expect(res.status).toBe(401);
    expect(res.body.error).toMatchObject({ type: 'authentication_error', code });
  });

  it('answers an expired key with 401', async () => {
    const created = await createKey(sandbox, {
      name: 'short-lived',
      environment: 'sandbox',
      expires_at: new Date(Date.now() + 1500).toISOString(),
    });
    expect((await server.request('/v1/merchant', { token: created.body.secret_key })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1700));
    const res = await server.request('/v1/merchant', { token: created.body.secret_key });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('API_KEY_EXPIRED');
  });

  it('keeps last_used_at without a write on every request', async () => {
    const created = await createKey(sandbox, { name: 'usage', environment: 'sandbox' });
    expect((await dbRow(created.body.id)).last_used_at).toBeNull();
    await server.request('/v1/merchant', { token: created.body.secret_key });
    const first = (await dbRow(created.body.id)).last_used_at;
    expect(first).not.toBeNull();
    await server.request('/v1/merchant', { token: created.body.secret_key });
    expect((await dbRow(created.body.id)).last_used_at).toEqual(first);
  });
});

describe('DELETE /v1/api-keys/{id}', () => {
  it('revokes: 200 with status revoked and revoked_at, the key answers 401 and its row is kept', async () => {
    const created = await createKey(sandbox, { name: 'to-revoke', environment: 'sandbox' });
    const res = await server.request(`/v1/api-keys/${created.body.id}`, { token: sandbox, method: 'DELETE' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: created.body.id, status: 'revoked', revoked_at: expect.any(String) });
    const after = await server.request('/v1/merchant', { token: created.body.secret_key });
    expect(after.status).toBe(401);
    expect(after.body.error.code).toBe('API_KEY_REVOKED');
    expect((await dbRow(created.body.id)).status).toBe('revoked');
  });

  it('revoking the calling key locks the caller out', async () => {
    const created = await createKey(sandbox, { name: 'self', environment: 'sandbox' });
    const self = created.body.secret_key;
    expect((await server.request(`/v1/api-keys/${created.body.id}`, { token: self, method: 'DELETE' })).status).toBe(
      200,
    );
    expect((await server.request('/v1/api-keys', { token: self })).status).toBe(401);
  });

  it('answers 404 for a key of the other environment, of another account, or a malformed id', async () => {
    const liveKey = account.keys.live.id;
    const cross = await server.request(`/v1/api-keys/${liveKey}`, { token: sandbox, method: 'DELETE' });
    expect(cross.status).toBe(404);
    expect(cross.body.error.type).toBe('not_found_error');
    const other = await server.bootstrap();
    const foreign = await server.request(`/v1/api-keys/${other.keys.sandbox.id}`, { token: sandbox, method: 'DELETE' });
    expect(foreign.status).toBe(404);
    expect((await server.request('/v1/merchant', { token: other.keys.sandbox.secret_key })).status).toBe(200);
    expect((await server.request('/v1/api-keys/not-a-uuid', { token: sandbox, method: 'DELETE' })).status).toBe(404);
  });
});

describe('permissions', () => {
  it('answers a missing scope with 403 INSUFFICIENT_PERMISSIONS naming the account keys that hold it', async () => {
    const limited = await createKey(sandbox, {
      name: 'limited',
      environment: 'sandbox',
      permissions: ['verification:read'],
    });
    const res = await server.request('/v1/merchant', { token: limited.body.secret_key });
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ type: 'permission_error', code: 'INSUFFICIENT_PERMISSIONS' });
    expect(res.body.error.message).toContain('settings:read');
    expect(res.body.error.message).toContain('Bootstrap sandbox key');
  });

  it('refuses a read-only key on a writing endpoint with READ_ONLY_KEY even when it holds the scope', async () => {
    const ro = await createKey(sandbox, {
      name: 'ro',
      environment: 'sandbox',
      access: 'read_only',
      permissions: ['settings:read', 'settings:write'],
    });
    const write = await createKey(ro.body.secret_key, { name: 'nope', environment: 'sandbox' });
    expect(write.status).toBe(403);
    expect(write.body.error.code).toBe('READ_ONLY_KEY');
    const read = await server.request('/v1/api-keys', { token: ro.body.secret_key });
    expect(read.status).toBe(200);
    const entitlements = await server.request('/v1/entitlements', { token: ro.body.secret_key });
    expect(entitlements.body).toMatchObject({
      object: 'entitlements',
      mode: 'sandbox',
      environment: 'sandbox',
      access: 'read_only',
      tier: 'standard',
    });
  });

  it('read-only outranks a missing scope: a write by a read-only key without the scope is READ_ONLY_KEY', async () => {
    const ro = await createKey(sandbox, {
      name: 'ro2',
      environment: 'sandbox',
      access: 'read_only',
      permissions: ['verification:read'],
    });
    const res = await createKey(ro.body.secret_key, { name: 'nope', environment: 'sandbox' });
    expect(res.body.error.code).toBe('READ_ONLY_KEY');
  });
});

describe('GET /v1/merchant and /v1/entitlements', () => {
  it('returns the own account and the calling key entitlements', async () => {
    const merchant = await server.request('/v1/merchant', { token: live });
    expect(merchant.body).toMatchObject({
      object: 'merchant',
      id: account.merchant.id,
      status: 'active',
      tier: 'standard',
    });
    const ent = await server.request('/v1/entitlements', { token: live });
    expect(ent.body).toMatchObject({ mode: 'live', environment: 'live', access: 'read_write' });
    expect(ent.body.permissions).toContain('applicant:read');
  });
});
