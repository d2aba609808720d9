import { Webhook } from 'standardwebhooks';
import type { BootstrapResult } from '../../src/services/access/index.js';
import { decide, type SendResult } from '../../src/services/webhooks/index.js';
import { startReceiver, type Receiver, type ReceivedRequest } from '../support/receiver.js';
import { withTestAccount } from '../support/account.js';
import type { TestServer } from '../support/test-server.js';
import { waitFor } from '../support/wait.js';

// Spec, Delivery rules and decisions.md, Webhooks: the retry ladder, 429/503 deferrals,
// the 15 s timeout, disabling after 5 days of failures, api_key_ids routing, event size.

const HOUR = 3600;
const result = (statusCode: number | null, retryAfterSeconds: number | null = null): SendResult => ({
  statusCode,
  error: statusCode === null ? 'ECONNREFUSED' : null,
  durationMs: 1,
  retryAfterSeconds,
});
const LADDER = [0, 5, 300, 1800, 7200, 18000, 36000, 36000];

describe('429/503: Retry-After is honoured up to 6 hours per deferral and 24 hours overall, then the normal ladder', () => {
  it.each([429, 503])('%s defers without consuming an attempt, for Retry-After seconds', (status) => {
    expect(decide(result(status, 120), { attemptCount: 2, deferredSeconds: 0 }, LADDER)).toEqual({
      kind: 'defer',
      delaySeconds: 120,
    });
  });

  it('one deferral is capped at 6 hours', () => {
    expect(decide(result(429, 10 * HOUR), { attemptCount: 0, deferredSeconds: 0 }, LADDER)).toEqual({
      kind: 'defer',
      delaySeconds: 6 * HOUR,
    });
  });

  it('deferrals together are capped at 24 hours: the last one only gets what is left', () => {
    expect(decide(result(503, 6 * HOUR), { attemptCount: 0, deferredSeconds: 23 * HOUR }, LADDER)).toEqual({
      kind: 'defer',
      delaySeconds: HOUR,
    });
  });

  it('after 24 hours of deferral a 429 is a failed attempt on the normal ladder (consumes an attempt), and fails the delivery on the last rung', () => {
    const next = decide(result(429, 60), { attemptCount: 1, deferredSeconds: 24 * HOUR }, LADDER);
    expect(next.kind).toBe('retry');
    expect((next as { delaySeconds: number }).delaySeconds).toBeGreaterThanOrEqual(LADDER[2]);
    expect((next as { delaySeconds: number }).delaySeconds).toBeLessThanOrEqual(LADDER[2] * 1.1);
    expect(decide(result(429, 60), { attemptCount: LADDER.length - 1, deferredSeconds: 24 * HOUR }, LADDER)).toEqual({
      kind: 'failed',
    });
  });

  it('without Retry-After a 429 defers by the next rung of the ladder, still without consuming an attempt', () => {
    expect(decide(result(429), { attemptCount: 1, deferredSeconds: 0 }, LADDER)).toEqual({
      kind: 'defer',
      delaySeconds: LADDER[2],
    });
  });

  it('any other non-2xx, and a connection error, is a failed attempt retried on the ladder with up to 10% jitter', () => {
    for (const r of [result(500), result(404), result(302), result(null)]) {
      const d = decide(r, { attemptCount: 2, deferredSeconds: 0 }, LADDER);
      expect(d.kind).toBe('retry');
      expect((d as { delaySeconds: number }).delaySeconds).toBeGreaterThanOrEqual(LADDER[3]);
      expect((d as { delaySeconds: number }).delaySeconds).toBeLessThanOrEqual(LADDER[3] * 1.1);
    }
    expect(decide(result(500), { attemptCount: 7, deferredSeconds: 0 }, LADDER)).toEqual({ kind: 'failed' });
    expect(decide(result(410), { attemptCount: 0, deferredSeconds: 0 }, LADDER)).toEqual({ kind: 'gone' });
    expect(decide(result(204), { attemptCount: 0, deferredSeconds: 0 }, LADDER)).toEqual({ kind: 'delivered' });
  });
});

describe('delivery against a real receiver', () => {
  let server: TestServer;
  let receiver: Receiver;
  let account: BootstrapResult;
  let sandbox: string;
  withTestAccount((t) => ({ server, account, sandbox } = t), { env: { WEBHOOK_RETRY_SCHEDULE: '0,1,1' } });
  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(() => receiver.close());

  let pathCounter = 0;
  const freshPath = () => `/audit-${++pathCounter}`;
  const atPath = (path: string) => (r: ReceivedRequest) => r.path === path;
  async function endpoint(path: string, body: Record<string, unknown> = {}, token = sandbox) {
    const res = await server.request('/v1/webhooks', {
      token,
      body: { url: `${receiver.url}${path}`, events: ['verification.created'], ...body },
    });
    expect(res.status).toBe(201);
    return res.body as { id: string; signing_secret: string; api_key_ids: string[] };
  }
  const createVerification = async (token = sandbox, body: Record<string, unknown> = {}) => {
    const res = await server.request('/v1/verifications', { token, body });
    expect(res.status).toBe(201);
    return res.body.id as string;
  };
  const endpointRow = async (id: string) =>
    (await server.sql('select status, failing_since from webhook_endpoints where id = $1', [id]))[0];
  const settledDeliveries = (endpointId: string) =>
    waitFor(
      async () => {
        const rows = await server.sql(
          'select status, attempts, attempt_count from webhook_deliveries where endpoint_id = $1',
          [endpointId],
        );
        return rows.length > 0 && rows.every((r) => r.status !== 'pending') ? rows : undefined;
      },
      30_000,
      'deliveries to settle',
    );

  it('an endpoint whose every attempt has failed for 5 days is disabled and receives nothing more', async () => {
    const path = freshPath();
    const ep = await endpoint(path);
    receiver.queue(path, { status: 500 }, { status: 500 }, { status: 500 });
    await server.sql(`update webhook_endpoints set failing_since = now() - interval '5 days 1 minute' where id = $1`, [
      ep.id,
    ]);
    await createVerification();
    await receiver.waitFor(1, atPath(path));
    await waitFor(async () => (await endpointRow(ep.id)).status === 'disabled', 15_000, 'endpoint disabled');
    const listed = (await server.request('/v1/webhooks', { token: sandbox })).body.data.find(
      (e: { id: string }) => e.id === ep.id,
    );
    expect(listed.status).toBe('disabled');
    const seen = receiver.requests.filter(atPath(path)).length;
    await createVerification();
    await new Promise((r) => setTimeout(r, 2500));
    expect(receiver.requests.filter(atPath(path)).length).toBe(seen);
  });

  it('failing for less than 5 days keeps the endpoint active, and a success clears the failing run', async () => {
    const path = freshPath();
    const ep = await endpoint(path);
    await server.sql(`update webhook_endpoints set failing_since = now() - interval '4 days 23 hours' where id = $1`, [
      ep.id,
    ]);
    receiver.queue(path, { status: 500 });
    await createVerification();
    const [delivery] = await settledDeliveries(ep.id);
    expect(delivery.status).toBe('delivered');
    expect(delivery.attempts.map((a: { status_code: number }) => a.status_code)).toEqual([500, 200]);
    expect(await endpointRow(ep.id)).toMatchObject({ status: 'active', failing_since: null });
  });

  it('a receiver that does not answer within 15 s is a failed attempt (logged with its error and duration), retried with the same id and body', async () => {
    const path = freshPath();
    const ep = await endpoint(path);
    receiver.queue(path, { hang: true });
    await createVerification();
    const [delivery] = await waitFor(
      async () => {
        const rows = await server.sql('select status, attempts from webhook_deliveries where endpoint_id = $1', [
          ep.id,
        ]);
        return rows.length > 0 && rows[0].status === 'delivered' ? rows : undefined;
      },
      40_000,
      'delivery after a timeout',
    );
    const [timedOut, ok] = delivery.attempts;
    expect(timedOut.status_code).toBeNull();
    expect(timedOut.error).toMatch(/timeout/i);
    expect(timedOut.duration_ms).toBeGreaterThanOrEqual(14_900);
    expect(timedOut.duration_ms).toBeLessThan(20_000);
    expect(ok.status_code).toBe(200);
    const [first, second] = receiver.requests.filter(atPath(path));
    expect(second.headers['webhook-id']).toBe(first.headers['webhook-id']);
    expect(second.body).toBe(first.body);
    new Webhook(ep.signing_secret).verify(second.body, second.headers);
  }, 60_000);

  it('api_key_ids: a key minted after the endpoint is never added to it, so its traffic is not delivered', async () => {
    const path = freshPath();
    const ep = await endpoint(path, { api_key_ids: [account.keys.sandbox.id] });
    const minted = await server.request('/v1/api-keys', {
      token: sandbox,
      body: { name: 'later', environment: 'sandbox' },
    });
    expect(minted.status).toBe(201);
    const fromLater = await createVerification(minted.body.secret_key);
    const fromListed = await createVerification();
    const [got] = await receiver.waitFor(1, atPath(path));
    await new Promise((r) => setTimeout(r, 2000)); // time for the later key's event to (wrongly) arrive
    expect(receiver.requests.filter(atPath(path)).map((r) => JSON.parse(r.body).data.verification.id)).toEqual([
      fromListed,
    ]);
    expect(JSON.parse(got.body).data.verification.id).not.toBe(fromLater);
    const listed = (await server.request('/v1/webhooks', { token: sandbox })).body.data.find(
      (e: { id: string }) => e.id === ep.id,
    );
    expect(listed.api_key_ids).toEqual([account.keys.sandbox.id]);
  });

  it('events stay under 20 KB, even with every field at its largest', async () => {
    const path = freshPath();
    await endpoint(path, {
      events: [
        'verification.created',
        'verification.rejected',
        'verification.completed',
        'check.completed',
        'verification.tag_added',
      ],
    });
    const codes = Array.from({ length: 10 }, (_, i) => `R${i}_${'X'.repeat(60)}`);
    const id = await createVerification(sandbox, {
      checks: Array.from({ length: 20 }, () => ({ type: 'document' })),
      metadata: Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`.padEnd(40, 'k'), 'v'.repeat(500)])),
      sandbox: { outcome: 'rejected', reason_codes: codes },
    });
    await waitFor(
      async () => (await server.request(`/v1/verifications/${id}`, { token: sandbox })).body.status === 'rejected',
      20_000,
      'rejection',
    );
    const tag = await server.request(`/v1/verifications/${id}/tags`, {
      token: sandbox,
      body: { names: ['t'.repeat(100)] },
    });
    expect(tag.status).toBe(200);
    const received = await receiver.waitFor(24, atPath(path), 20_000);
    for (const r of received) expect(Buffer.byteLength(r.body)).toBeLessThan(20 * 1024);
    const [{ max }] = await server.sql<{ max: number }>(
      'select max(octet_length(payload::text))::int as max from events where verification_id = $1',
      [id],
    );
    expect(max).toBeLessThan(20 * 1024);
    // Never applicant identity, and metadata is not carried either.
    expect(received.some((r) => r.body.includes('v'.repeat(500)))).toBe(false);
  });
});
