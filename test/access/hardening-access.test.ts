import {
  SIGN_IN_FAILURES_PER_EMAIL,
  type BootstrapResult,
  type MemberPermission,
} from '../../src/services/access/index.js';
import { CreateApiKeyDocument } from '../graphql/generated.js';
import { gql } from '../support/graphql.js';
import { signedInMember } from '../support/members.js';
import type { TestServer } from '../support/test-server.js';
import { withTestAccount } from '../support/account.js';

let server: TestServer;
let account: BootstrapResult;
withTestAccount((t) => ({ server, account } = t));

const PASSWORD = 'a-long-enough-password';
let seq = 0;

const memberWith = (permissions: string[]) => signedInMember(server, account, permissions as MemberPermission[]);

const signIn = (email: string, password: string) =>
  server.request('/v1/console/sessions', { body: { email, password } });

describe('member sign-in is throttled (issue 18)', () => {
  it('after the per-email budget of failures, 429 with Retry-After, alike for a known and an unknown email, even with the right password', async () => {
    const { email: known } = await memberWith([]);
    const unknown = `nobody-${Date.now()}@example.com`;
    for (const email of [known, unknown]) {
      for (let i = 0; i < SIGN_IN_FAILURES_PER_EMAIL; i++) {
        const res = await signIn(email, 'wrong-password-123');
        expect(res.status).toBe(401);
        expect(res.body.error.code).toBe('INVALID_CREDENTIALS');
      }
    }
    const answers = await Promise.all([
      signIn(known, 'wrong-password-123'),
      signIn(unknown, 'wrong-password-123'),
      signIn(known, PASSWORD),
    ]);
    for (const res of answers) {
      expect(res.status).toBe(429);
      expect(res.body.error).toMatchObject({ type: 'rate_limit_error', code: 'RATE_LIMITED' });
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    // Same body for both (the message does not tell which email exists).
    expect(answers[0]!.body.error.message).toBe(answers[1]!.body.error.message);
  });

  it('a refused sign-in takes no password check: a known and an unknown email answer in comparable time', async () => {
    const { email: known } = await memberWith([]);
    const unknown = `nobody-timing-${Date.now()}@example.com`;
    const time = async (email: string) => {
      const started = performance.now();
      await signIn(email, 'wrong-password-123');
      return performance.now() - started;
    };
    const known1 = await time(known);
    const unknown1 = await time(unknown);
    // Both pay for one password hash (the unknown email against a dummy hash): within a factor of three.
    expect(Math.max(known1, unknown1) / Math.min(known1, unknown1)).toBeLessThan(3);
  });
});

describe('a member never gains through a key what its seat lacks (issue 18)', () => {
  const mint = (token: string, permissions?: string[]) =>
    gql(server, token, CreateApiKeyDocument, {
      input: { name: `minted ${seq++}`, environment: 'sandbox', ...(permissions ? { permissions } : {}) },
    });

  it('logs.read alone cannot mint verification:reopen, settings:write or webhook:manage', async () => {
    const { token } = await memberWith(['logs.read', 'keys.manage']);
    for (const scope of ['verification:reopen', 'settings:write', 'webhook:manage', 'applicant:read']) {
      const res = await mint(token, ['verification:read', scope]);
      expect(res.body.errors?.[0].extensions).toMatchObject({
        code: 'INSUFFICIENT_PERMISSIONS',
        type: 'permission_error',
      });
    }
    // Without a list it gets the sandbox defaults it may grant.
    const defaults = await mint(token);
    expect(defaults.body.errors).toBeUndefined();
    expect(defaults.body.data!.createApiKey.apiKey.permissions).toEqual([
      'verification:create',
      'verification:read',
      'settings:read',
    ]);
  });

  it('each scope is granted by the member permission that covers it', async () => {
    const { token } = await memberWith(['settings.manage', 'reviews.resolve_escalation', 'keys.manage']);
    const res = await mint(token, ['settings:write', 'webhook:manage', 'verification:reopen']);
    expect(res.body.errors).toBeUndefined();
  });

  it('changing account settings (retention_days among them) needs settings.manage', async () => {
    const { token: without } = await memberWith(['logs.read']);
    const refused = await server.request('/v1/console/settings', {
      token: without,
      method: 'PATCH',
      body: { retention_days: 1 },
    });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ type: 'permission_error', code: 'INSUFFICIENT_PERMISSIONS' });
    const viaGraphql = await server.graphql(
      without,
      'mutation { updateSettings(input: { retentionDays: 1 }) { retentionDays } }',
    );
    expect(viaGraphql.body.errors?.[0].extensions).toMatchObject({ code: 'INSUFFICIENT_PERMISSIONS' });
    expect((await server.request('/v1/console/settings', { token: without })).body.retention_days).not.toBe(1);
    const { token: manager } = await memberWith(['settings.manage']);
    const allowed = await server.request('/v1/console/settings', {
      token: manager,
      method: 'PATCH',
      body: { retention_days: 30 },
    });
    expect(allowed.status).toBe(200);
    expect(allowed.body.retention_days).toBe(30);
  });
});

describe('INSUFFICIENT_PERMISSIONS names only keys that could make the call (issue 18)', () => {
  it('keys of the caller environment holding the scope, read-write for a write; never the other environment or read-only keys', async () => {
    const sk = account.keys.sandbox.secret_key;
    const narrow = await server.request('/v1/api-keys', {
      token: sk,
      body: { name: 'narrow', environment: 'sandbox', permissions: ['verification:read'] },
    });
    const readOnly = await server.request('/v1/api-keys', {
      token: sk,
      body: {
        name: 'reader with create',
        environment: 'sandbox',
        access: 'read_only',
        permissions: ['verification:create'],
      },
    });
    expect(readOnly.status).toBe(201);
    const res = await server.request('/v1/verifications', { token: narrow.body.secret_key, body: {} });
    expect(res.status).toBe(403);
    const message: string = res.body.error.message;
    expect(message).not.toContain('reader with create');
    expect(message).not.toContain(account.keys.live.secret_key.slice(0, 12));
    expect(message).not.toMatch(/\blive\b/);
  });
});
