import { ApiKey } from '../../src/entities/api-key.entity.js';
import { scopedFork, systemFork } from '../../src/orm.js';
import { revokeApiKey } from '../../src/services/access/index.js';
import type { ServiceContext } from '../../src/services/shared/index.js';
import { gql } from '../support/graphql.js';
import { RevokeApiKeyDocument } from '../graphql/generated.js';
import { withTestServer } from '../support/account.js';
import type { TestServer } from '../support/test-server.js';
import { testLogger } from '../support/logs.js';

let server: TestServer;
withTestServer((s) => (server = s));

describe('tenancy: every query is scoped to the caller account and environment', () => {
  it('a service query written without any account condition cannot read another account or environment', async () => {
    const a = await server.bootstrap();
    const b = await server.bootstrap();
    const em = scopedFork(server.runtime.orm, { merchantId: a.merchant.id, modes: ['sandbox'] });
    // No merchant or mode in the where clause: the filter alone keeps B's and A-live's rows out.
    expect(await em.findOne(ApiKey, { id: b.keys.sandbox.id })).toBeNull();
    expect(await em.findOne(ApiKey, { id: a.keys.live.id })).toBeNull();
    expect(await em.findOne(ApiKey, { id: a.keys.sandbox.id })).not.toBeNull();
    const all = await em.find(ApiKey, {});
    expect(all.map((k) => k.id)).toEqual([a.keys.sandbox.id]);
  });

  it('a fork with no scope bound fails closed instead of reading every account', async () => {
    const em = systemFork(server.runtime.orm);
    await expect(em.find(ApiKey, {})).rejects.toThrow(/filter/i);
  });

  it('the service answers 404 for another account id even when called directly', async () => {
    const a = await server.bootstrap();
    const b = await server.bootstrap();
    const ctx: ServiceContext = {
      em: scopedFork(server.runtime.orm, { merchantId: a.merchant.id, modes: ['sandbox', 'live'] }),
      requestId: 'req_test',
      log: testLogger(),
      merchantId: a.merchant.id,
      caller: { kind: 'system' },
      modes: ['sandbox', 'live'],
      runtime: server.runtime,
    };
    await expect(revokeApiKey(ctx, b.keys.live.id)).rejects.toMatchObject({ status: 404, type: 'not_found_error' });
  });

  it('GraphQL: a member revoking another account key gets a not_found_error and the key keeps working', async () => {
    const a = await server.bootstrap();
    const b = await server.bootstrap();
    const res = await gql(server, a.member.session_token, RevokeApiKeyDocument, { id: b.keys.sandbox.id });
    expect(res.body.errors?.[0].extensions).toMatchObject({ code: 'RESOURCE_NOT_FOUND', type: 'not_found_error' });
    expect((await server.request('/v1/merchant', { token: b.keys.sandbox.secret_key })).status).toBe(200);
  });
});
