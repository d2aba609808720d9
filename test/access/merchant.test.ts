import type { BootstrapResult } from '../../src/services/access/index.js';
import type { TestServer } from '../support/test-server.js';
import { withTestAccount } from '../support/account.js';

let server: TestServer;
let account: BootstrapResult;

withTestAccount((t) => ({ server, account } = t));

describe('GET /v1/merchant (own account only)', () => {
  it("answers the calling key's account; a profile change is seen within the one-second cache window", async () => {
    const token = account.keys.sandbox.secret_key;
    const first = await server.request('/v1/merchant', { token });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      id: account.merchant.id,
      object: 'merchant',
      status: 'active',
      tier: 'standard',
    });
    await server.sql('update merchants set name = $1 where id = $2', ['Renamed Ltd', account.merchant.id]);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const later = await server.request('/v1/merchant', { token });
    expect(later.body.name).toBe('Renamed Ltd');
    // Entitlements read the same account (tier) for the calling key.
    const entitlements = await server.request('/v1/entitlements', { token });
    expect(entitlements.body).toMatchObject({
      object: 'entitlements',
      mode: 'sandbox',
      tier: 'standard',
      access: 'read_write',
    });
  });

  it("another account's key reads its own account, never the first one", async () => {
    const other = await server.bootstrap();
    const mine = await server.request('/v1/merchant', { token: account.keys.live.secret_key });
    const theirs = await server.request('/v1/merchant', { token: other.keys.live.secret_key });
    expect(mine.body.id).toBe(account.merchant.id);
    expect(theirs.body.id).toBe(other.merchant.id);
  });
});
