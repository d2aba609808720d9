import { MEMBER_PERMISSIONS } from '../../src/services/access/index.js';
import { runCli } from '../../src/cli.js';
import { withTestServer } from '../support/account.js';
import type { TestServer } from '../support/test-server.js';

let server: TestServer;
withTestServer((s) => (server = s));

async function cli(args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(args, server.config, { out: (t) => out.push(t), err: (t) => err.push(t) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('CLI', () => {
  it('bootstrap --json creates a new independent account with working keys and session each call', async () => {
    const first = await cli(['bootstrap', '--json']);
    const second = await cli(['bootstrap', '--json']);
    expect(first.code).toBe(0);
    const a = JSON.parse(first.out);
    const b = JSON.parse(second.out);
    expect(a).toEqual({
      merchant: { id: expect.stringMatching(/^mer_/) },
      member: {
        id: expect.any(String),
        email: expect.any(String),
        password: expect.any(String),
        session_token: expect.any(String),
      },
      keys: {
        sandbox: { id: expect.any(String), secret_key: expect.stringMatching(/^sk_test_/) },
        live: { id: expect.any(String), secret_key: expect.stringMatching(/^sk_live_/) },
      },
    });
    expect(a.merchant.id).not.toBe(b.merchant.id);
    const merchant = await server.request('/v1/merchant', { token: a.keys.live.secret_key });
    expect(merchant.body.id).toBe(a.merchant.id);
    const entitlements = await server.request('/v1/entitlements', { token: a.keys.sandbox.secret_key });
    expect(entitlements.body.permissions.sort()).toEqual([
      'analytics:read',
      'applicant:read',
      'settings:read',
      'settings:write',
      'verification:create',
      'verification:read',
      'verification:reopen',
      'webhook:manage',
    ]);
    const viewer = await server.graphql(a.member.session_token, '{ viewer { member { permissions } environments } }');
    expect([...viewer.body.data.viewer.member.permissions].sort()).toEqual([...MEMBER_PERMISSIONS].sort());
    const signIn = await server.request('/v1/console/sessions', {
      body: { email: a.member.email, password: a.member.password },
    });
    expect(signIn.status).toBe(201);
    // b's key cannot see a's keys.
    expect(
      (
        await server.request(`/v1/api-keys/${a.keys.sandbox.id}`, {
          token: b.keys.sandbox.secret_key,
          method: 'DELETE',
        })
      ).status,
    ).toBe(404);
  });

  it('member create adds a member who can sign in; migrate reports up to date', async () => {
    const account = JSON.parse((await cli(['bootstrap', '--json'])).out);
    const created = await cli([
      'member',
      'create',
      '--merchant',
      account.merchant.id,
      '--email',
      'Analyst@Example.com',
      '--password',
      'correct-horse-battery',
      '--permissions',
      'logs.read',
      '--environments',
      'live',
    ]);
    expect(created.code).toBe(0);
    expect(JSON.parse(created.out)).toMatchObject({
      email: 'analyst@example.com',
      permissions: ['logs.read'],
      environments: ['live'],
    });
    const signIn = await server.request('/v1/console/sessions', {
      body: { email: 'analyst@example.com', password: 'correct-horse-battery' },
    });
    expect(signIn.status).toBe(201);
    const duplicate = await cli([
      'member',
      'create',
      '--merchant',
      account.merchant.id,
      '--email',
      'analyst@example.com',
      '--password',
      'correct-horse-battery',
    ]);
    expect(duplicate.code).toBe(1);
    expect(duplicate.err).toContain('MEMBER_EXISTS');
    expect((await cli(['migrate'])).out).toContain('up to date');
    expect((await cli(['frobnicate'])).code).toBe(2);
  });
});
