import type { Context } from 'koa';
import { costOf } from '../../src/http/auth.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { withTestServer } from '../support/account.js';

let server: TestServer;
withTestServer((s) => (server = s), { env: { RATE_LIMIT_PER_MINUTE: '6' } });

describe('rate limit: tokens per minute per key', () => {
  it('reports RateLimit-* headers and answers 429 rate_limit_error with Retry-After once the budget is spent', async () => {
    const { keys } = await server.bootstrap();
    const token = keys.sandbox.secret_key;
    const remaining: number[] = [];
    for (let i = 0; i < 6; i++) {
      const res = await server.request('/v1/merchant', { token });
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit-limit')).toBe('6');
      remaining.push(Number(res.headers.get('ratelimit-remaining')));
    }
    expect(remaining).toEqual([5, 4, 3, 2, 1, 0]);
    const limited = await server.request('/v1/merchant', { token });
    expect(limited.status).toBe(429);
    expect(limited.body.error).toMatchObject({ type: 'rate_limit_error', code: 'RATE_LIMITED' });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(limited.headers.get('ratelimit-remaining')).toBe('0');
    // Another key of the same account has its own budget.
    expect((await server.request('/v1/merchant', { token: keys.live.secret_key })).status).toBe(200);
  });

  it('the budget holds across two server processes sharing the database', async () => {
    // A second process on the same database.
    const other2 = await startTestServer({
      databaseUrl: server.databaseUrl,
      env: { RATE_LIMIT_PER_MINUTE: '6' },
      workJobs: false,
    });
    try {
      const { keys } = await server.bootstrap();
      const token = keys.sandbox.secret_key;
      const statuses: number[] = [];
      for (let i = 0; i < 8; i++) {
        const res =
          i % 2 === 0
            ? await server.request('/v1/merchant', { token })
            : await other2.request('/v1/merchant', { token });
        statuses.push(res.status);
      }
      expect(statuses.filter((s) => s === 200)).toHaveLength(6);
      expect(statuses.slice(6)).toEqual([429, 429]);
    } finally {
      await other2.close();
    }
  });

  it('at a budget reserved in chunks (300/min), concurrent calls across cache refreshes spend exactly the budget: none lost, none extra', async () => {
    // A second process on the same database.
    const other3 = await startTestServer({
      databaseUrl: server.databaseUrl,
      env: { RATE_LIMIT_PER_MINUTE: '300' },
      workJobs: false,
    });
    try {
      const { keys } = await server.bootstrap();
      const token = keys.sandbox.secret_key;
      const statuses: number[] = [];
      const started = Date.now();
      for (let wave = 0; wave < 17; wave++) {
        const batch = await Promise.all(Array.from({ length: 20 }, () => other3.request('/v1/merchant', { token })));
        statuses.push(...batch.map((r) => r.status));
        await new Promise((r) => setTimeout(r, 120)); // crosses several 1 s cache refreshes
      }
      const elapsedSeconds = (Date.now() - started) / 1000;
      const passed = statuses.filter((s) => s === 200).length;
      expect(statuses.filter((s) => s !== 200 && s !== 429)).toEqual([]);
      // 340 calls against 300 tokens plus the refill during the run (5 per second).
      expect(passed).toBeGreaterThanOrEqual(300);
      expect(passed).toBeLessThanOrEqual(300 + Math.ceil(elapsedSeconds * 5) + 1);
    } finally {
      await other3.close();
    }
  });

  it('costs 1 per call and 1 per 50 addresses for lookup, rounded up', () => {
    const ctx = (method: string, path: string, body?: unknown) =>
      ({ method, path, request: { body } }) as unknown as Context;
    expect(costOf(ctx('GET', '/v1/merchant'))).toBe(1);
    expect(costOf(ctx('POST', '/v1/verifications/lookup', { emails: Array(1000).fill('a@b.c') }))).toBe(20);
    expect(costOf(ctx('POST', '/v1/verifications/lookup', { emails: Array(51).fill('a@b.c') }))).toBe(2);
    expect(costOf(ctx('POST', '/v1/verifications/lookup', { emails: ['a@b.c'] }))).toBe(1);
  });
});
