// Account settings in GraphQL: the same service, rules and optimistic versioning as /v1/console/settings.
import type { BootstrapResult } from '../../src/services/access/index.js';
import { SettingsDocument, UpdateSettingsDocument } from '../graphql/generated.js';
import { gql } from '../support/graphql.js';
import type { TestServer } from '../support/test-server.js';
import { withTestAccount } from '../support/account.js';

let server: TestServer;
let account: BootstrapResult;
withTestAccount((t) => ({ server, account } = t));

const token = () => account.member.session_token;

describe('GraphQL account settings', () => {
  it('settings reads the defaults of decisions.md, the same record REST reads', async () => {
    const res = await gql(server, token(), SettingsDocument);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data?.settings).toEqual({
      repeatVerification: { enabled: true, scope: 'same_flow' },
      reverificationPeriodDays: null,
      retentionDays: 1095,
      reviewPolicy: { claimRequired: false, claimLeaseMinutes: 30, presenceTtlMs: 30000, presenceHeartbeatMs: 10000 },
      version: 1,
    });
    const rest = await server.request('/v1/console/settings', { token: token() });
    expect(rest.body.version).toBe(1);
  });

  it('updateSettings changes only what is sent, bumps the version, and REST sees it', async () => {
    const before = (await gql(server, token(), SettingsDocument)).body.data!.settings;
    const res = await gql(server, token(), UpdateSettingsDocument, {
      input: { repeatVerification: { scope: 'any' }, reverificationPeriodDays: 90, version: before.version },
    });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data?.updateSettings).toMatchObject({
      repeatVerification: { enabled: true, scope: 'any' },
      reverificationPeriodDays: 90,
      retentionDays: 1095,
      version: before.version + 1,
    });
    const rest = await server.request('/v1/console/settings', { token: token() });
    expect(rest.body).toMatchObject({
      repeat_verification: { enabled: true, scope: 'any' },
      reverification_period_days: 90,
      version: before.version + 1,
    });
    const cleared = await gql(server, token(), UpdateSettingsDocument, { input: { reverificationPeriodDays: null } });
    expect(cleared.body.data?.updateSettings.reverificationPeriodDays).toBeNull();
  });

  it('a stale version applies nothing: STALE_VERSION with detail.current_version', async () => {
    const current = (await gql(server, token(), SettingsDocument)).body.data!.settings;
    const res = await gql(server, token(), UpdateSettingsDocument, {
      input: { retentionDays: 30, version: current.version - 1 },
    });
    expect(res.body.errors?.[0].extensions).toMatchObject({
      code: 'STALE_VERSION',
      type: 'invalid_request_error',
      detail: { current_version: current.version },
    });
    expect((await gql(server, token(), SettingsDocument)).body.data!.settings).toMatchObject({
      retentionDays: current.retentionDays,
      version: current.version,
    });
  });

  it('validated by the REST rules, with the GraphQL field named in param; an empty input is PARAMETER_MISSING', async () => {
    const bad = await gql(server, token(), UpdateSettingsDocument, {
      input: { reviewPolicy: { claimLeaseMinutes: 0 } },
    });
    expect(bad.body.errors?.[0].extensions).toMatchObject({
      code: 'PARAMETER_INVALID',
      param: 'reviewPolicy.claimLeaseMinutes',
    });
    const empty = await gql(server, token(), UpdateSettingsDocument, { input: {} });
    expect(empty.body.errors?.[0].extensions).toMatchObject({ code: 'PARAMETER_MISSING' });
  });

  it('switching the control off in GraphQL takes effect at once on the REST create (R10)', async () => {
    const own = await server.bootstrap();
    const key = own.keys.sandbox.secret_key;
    const email = `gql-r10-${Date.now()}@example.com`;
    const first = await server.request('/v1/verifications', {
      token: key,
      body: { applicant: { email }, sandbox: { outcome: 'review' } },
    });
    expect(first.status).toBe(201);
    const deadline = Date.now() + 15_000;
    while (
      (await server.request(`/v1/verifications/${first.body.id}`, { token: key })).body.status !== 'manual_review' &&
      Date.now() < deadline
    )
      await new Promise((r) => setTimeout(r, 100));
    expect(
      (await server.request('/v1/verifications', { token: key, body: { applicant: { email } } })).body.error.code,
    ).toBe('VERIFICATION_IN_REVIEW');
    const off = await gql(server, own.member.session_token, UpdateSettingsDocument, {
      input: { repeatVerification: { enabled: false } },
    });
    expect(off.body.data?.updateSettings.repeatVerification.enabled).toBe(false);
    expect((await server.request('/v1/verifications', { token: key, body: { applicant: { email } } })).status).toBe(
      201,
    );
  });

  it('a secret key is refused on /graphql', async () => {
    const res = await gql(server, account.keys.sandbox.secret_key, SettingsDocument);
    expect(res.status).toBe(401);
  });
});
