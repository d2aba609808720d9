import type { BootstrapResult } from '../../src/services/access/index.js';
import { withTestServer } from '../support/account.js';
import type { TestServer } from '../support/test-server.js';

let server: TestServer;
let account: BootstrapResult;
let token: string;
const created: string[] = [];

withTestServer(async (s) => {
  server = s;
  account = await server.bootstrap();
  token = account.keys.sandbox.secret_key;
  for (let i = 0; i < 5; i++) {
    const res = await server.request('/v1/api-keys', { token, body: { name: `k${i}`, environment: 'sandbox' } });
    created.push(res.body.id);
  }
});

describe('cursor pagination (list envelope)', () => {
  it('walks newest first with limit and starting_after until has_more is false and next_cursor null', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = `?limit=2${cursor ? `&starting_after=${cursor}` : ''}`;
      const res = await server.request(`/v1/api-keys${query}`, { token });
      expect(res.status).toBe(200);
      expect(res.body.object).toBe('list');
      seen.push(...res.body.data.map((k: { id: string }) => k.id));
      if (res.body.has_more) expect(res.body.next_cursor).toBe(res.body.data[res.body.data.length - 1].id);
      else expect(res.body.next_cursor).toBeNull();
      cursor = res.body.next_cursor;
      pages++;
    } while (cursor);
    // 5 created plus the bootstrap sandbox key; the live key is in the other environment.
    expect(seen).toHaveLength(6);
    expect(pages).toBe(3);
    expect(seen.slice(0, 5)).toEqual([...created].reverse());
    expect(new Set(seen).size).toBe(6);
  });

  it('defaults to 20 and ignores an unknown cursor (first page returned)', async () => {
    const res = await server.request('/v1/api-keys?starting_after=00000000-0000-4000-8000-000000000000', { token });
    expect(res.status).toBe(200);
    expect(res.body.data[0].id).toBe(created[created.length - 1]);
    expect(res.body.data).toHaveLength(6);
    expect(res.body.has_more).toBe(false);
  });

  it.each(['0', '101', 'ten', '-1'])('refuses limit=%s with PARAMETER_INVALID param limit', async (limit) => {
    const res = await server.request(`/v1/api-keys?limit=${limit}`, { token });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'PARAMETER_INVALID', param: 'limit' });
  });

  it('refuses an unknown query parameter with PARAMETER_UNKNOWN', async () => {
    const res = await server.request('/v1/api-keys?colour=red', { token });
    expect(res.body.error).toMatchObject({ code: 'PARAMETER_UNKNOWN', param: 'colour' });
  });
});
