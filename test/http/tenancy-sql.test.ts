import type { Mode } from '../../src/config.js';
import { scopedFork } from '../../src/orm.js';
import type { BootstrapResult } from '../../src/services/access/index.js';
import { lookupVerifications } from '../../src/services/repeat-control/index.js';
import {
  ACCOUNT_ROW,
  placeFragment,
  tenantSql,
  TENANT_ROW,
  UnscopedStatementError,
  type ServiceContext,
} from '../../src/services/shared/index.js';
import { tagReferencesFor } from '../../src/services/catalog/index.js';
import {
  checksOfVerifications,
  identityOf,
  listVerificationItems,
  verificationItem,
} from '../../src/services/verifications/index.js';
import { withTestAccount } from '../support/account.js';
import { testLogger } from '../support/logs.js';
import type { TestServer } from '../support/test-server.js';

let server: TestServer;
let a: BootstrapResult;
let b: BootstrapResult;
let verificationId: string;
const email = `tenancy-sql-${Date.now()}@example.com`;

withTestAccount(async (t) => {
  ({ server, account: a } = t);
  b = await server.bootstrap();
  const created = await server.request('/v1/verifications', {
    token: a.keys.sandbox.secret_key,
    body: { applicant: { email } },
  });
  expect(created.status).toBe(201);
  verificationId = created.body.id;
  const tagged = await server.request(`/v1/verifications/${verificationId}/tags`, {
    token: a.keys.sandbox.secret_key,
    body: { names: ['tenancy-sql'] },
  });
  expect(tagged.status).toBe(200);
});

/** A context as the request middleware builds it, for an account and the environments its caller sees. */
const contextOf = (merchantId: string, modes: Mode[]): ServiceContext => ({
  em: scopedFork(server.runtime.orm, { merchantId, modes }),
  requestId: 'req_tenancy_sql',
  merchantId,
  caller: { kind: 'system' },
  modes,
  runtime: server.runtime,
  log: testLogger(),
});

describe('tenancy of hand-written SQL: tenantSql binds the account and environments in one place', () => {
  it('refuses a statement that does not bind merchant_id = $1 and the environments, before it runs', async () => {
    const ctx = contextOf(a.merchant.id, ['sandbox']);
    await expect(
      tenantSql(ctx).query('select identity from verifications where id = $3', [verificationId]),
    ).rejects.toBeInstanceOf(UnscopedStatementError);
    await expect(
      tenantSql(ctx).query('select id from verifications where merchant_id = $1 and id = $3', [verificationId]),
    ).rejects.toBeInstanceOf(UnscopedStatementError);
    const own = await tenantSql(ctx).query<{ id: string }>(
      'select id from verifications where merchant_id = $1 and mode = any($2::text[]) and id = $3',
      [verificationId],
    );
    expect(own).toEqual([{ id: verificationId }]);
  });

  it("a write takes its rows' account and environment from TENANT_ROW, for exactly one environment", async () => {
    const write = `with ${TENANT_ROW}
      insert into tags (id, merchant_id, mode, name, slug, color, created_at, updated_at)
      select $3, t.merchant_id, t.mode, $4, $4, 'slate', now(), now() from tenant t returning merchant_id, mode`;
    const tagId = `tag_tenancysql${Date.now()}`;
    await expect(
      tenantSql(contextOf(a.merchant.id, ['sandbox', 'live'])).query(write, [tagId, 'two-environments']),
    ).rejects.toBeInstanceOf(UnscopedStatementError);
    expect(await server.sql('select 1 from tags where id = $1', [tagId])).toEqual([]);
    const written = await tenantSql(contextOf(a.merchant.id, ['live'])).query(write, [tagId, `one-${tagId}`]);
    expect(written).toEqual([{ merchant_id: a.merchant.id, mode: 'live' }]);
    // An account-wide row (no environment) takes the account from ACCOUNT_ROW.
    const account = await tenantSql(contextOf(b.merchant.id, ['sandbox', 'live'])).query<{ merchant_id: string }>(
      `with ${ACCOUNT_ROW} select merchant_id from account`,
    );
    expect(account).toEqual([{ merchant_id: b.merchant.id }]);
  });

  it("a domain's piece keeps the tenant's $1 and $2 when placed after other pieces' parameters", () => {
    expect(placeFragment('merchant_id = $1 and mode = any($2::text[]) and id = $3 and n > $12', 5)).toBe(
      'merchant_id = $1 and mode = any($2::text[]) and id = $8 and n > $17',
    );
  });

  it('every SQL read path of a verification sees the owner account and environment, and nothing from another', async () => {
    const owner = contextOf(a.merchant.id, ['sandbox']);
    const otherAccount = contextOf(b.merchant.id, ['sandbox', 'live']);
    const otherEnvironment = contextOf(a.merchant.id, ['live']);

    expect((await verificationItem(owner, verificationId))?.id).toBe(verificationId);
    expect((await identityOf(owner, verificationId))?.email).toBe(email);
    expect((await checksOfVerifications(owner, [verificationId])).get(verificationId)!.length).toBeGreaterThan(0);
    expect((await tagReferencesFor(owner, [verificationId])).get(verificationId)?.map((t) => t.name)).toEqual([
      'tenancy-sql',
    ]);
    expect((await listVerificationItems(owner, { email }, { limit: 10 })).data.map((v) => v.id)).toEqual([
      verificationId,
    ]);

    for (const ctx of [otherAccount, otherEnvironment]) {
      expect(await verificationItem(ctx, verificationId)).toBeNull();
      expect(await identityOf(ctx, verificationId)).toBeNull();
      expect((await checksOfVerifications(ctx, [verificationId])).get(verificationId)).toEqual([]);
      expect((await tagReferencesFor(ctx, [verificationId])).get(verificationId)).toEqual([]);
      expect((await listVerificationItems(ctx, { email }, { limit: 10 })).data).toEqual([]);
    }
  });

  it('the email lookup finds the address for its account and environment only', async () => {
    const keyCtx = (merchantId: string, mode: Mode): ServiceContext => ({
      ...contextOf(merchantId, [mode]),
      caller: { kind: 'key', keyId: 'key_test', name: 'test', mode, permissions: [], access: 'read_write' },
    });
    const found = async (ctx: ServiceContext) => (await lookupVerifications(ctx, [email])).rows[0]!.found;
    expect(await found(keyCtx(a.merchant.id, 'sandbox'))).toBe(true);
    expect(await found(keyCtx(a.merchant.id, 'live'))).toBe(false);
    expect(await found(keyCtx(b.merchant.id, 'sandbox'))).toBe(false);
  });

  it('over HTTP, another account and the other environment get 404 for the id on the SQL read path, include= too', async () => {
    const path = `/v1/verifications/${verificationId}?include=applicant,documents`;
    expect((await server.request(path, { token: a.keys.sandbox.secret_key })).status).toBe(200);
    for (const token of [b.keys.sandbox.secret_key, b.keys.live.secret_key, a.keys.live.secret_key]) {
      const res = await server.request(path, { token });
      expect(res.status).toBe(404);
      expect(res.body.error).toMatchObject({ type: 'not_found_error' });
    }
  });
});
