import { Webhook } from 'standardwebhooks';
import { startReceiver, type Receiver, type ReceivedRequest } from '../support/receiver.js';
import type { TestServer } from '../support/test-server.js';
import { withTestAccount } from '../support/account.js';
import { waitFor } from '../support/wait.js';

let server: TestServer;
let receiver: Receiver;
let sandbox: string;
let live: string;

// The ladder shrunk to three attempts: at once, then 1 s, then 1 s.
withTestAccount((t) => ({ server, sandbox, live } = t), { env: { WEBHOOK_RETRY_SCHEDULE: '0,1,1' } });
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(() => receiver.close());

let pathCounter = 0;
const freshPath = () => `/delivery-${++pathCounter}`;
const atPath = (path: string) => (r: ReceivedRequest) => r.path === path;
const verify = (secret: string, r: ReceivedRequest) => new Webhook(secret).verify(r.body, r.headers);

async function endpoint(token: string, path: string, body: Record<string, unknown> = {}) {
  const res = await server.request('/v1/webhooks', {
    token,
    body: { url: `${receiver.url}${path}`, events: ['verification.approved'], ...body },
  });
  expect(res.status).toBe(201);
  return res.body as { id: string; signing_secret: string };
}
async function approved(token = sandbox): Promise<string> {
  const res = await server.request('/v1/verifications', { token, body: { sandbox: { outcome: 'approved' } } });
  expect(res.status).toBe(201);
  return res.body.id;
}
const verificationIdOf = (r: ReceivedRequest): string => JSON.parse(r.body).data.verification.id;
const settledDelivery = (endpointId: string, token = sandbox) =>
  waitFor(
    async () => {
      const list = (await server.request(`/v1/webhooks/${endpointId}/deliveries`, { token })).body.data;
      return list.length > 0 && list.every((d: { status: string }) => d.status !== 'pending') ? list[0] : undefined;
    },
    20_000,
    'delivery to settle',
  );
const endpointStatus = async (id: string) =>
  (await server.request('/v1/webhooks', { token: sandbox })).body.data.find((e: { id: string }) => e.id === id)?.status;

describe('retries (WEBHOOK_RETRY_SCHEDULE=0,1,1)', () => {
  it('retries failures on the ladder with the same webhook-id and byte-identical body, re-signed with a fresh timestamp', async () => {
    const path = freshPath();
    const ep = await endpoint(sandbox, path);
    receiver.queue(path, { status: 500 }, { status: 502 });
    await approved();
    const requests = await receiver.waitFor(3, atPath(path), 20_000);
    expect(new Set(requests.map((r) => r.headers['webhook-id'])).size).toBe(1);
    expect(new Set(requests.map((r) => r.body)).size).toBe(1);
    const stamps = requests.map((r) => Number(r.headers['webhook-timestamp']));
    expect(stamps[1]).toBeGreaterThan(stamps[0]!);
    expect(stamps[2]).toBeGreaterThan(stamps[1]!);
    expect(requests[1]!.at - requests[0]!.at).toBeGreaterThanOrEqual(1000);
    for (const r of requests) expect(() => verify(ep.signing_secret, r)).not.toThrow();
    const delivery = await settledDelivery(ep.id);
    expect(delivery).toMatchObject({ status: 'delivered', attempt_count: 3 });
    expect(delivery.attempts.map((a: { status_code: number }) => a.status_code)).toEqual([500, 502, 200]);
    expect(delivery.attempts[0]).toMatchObject({
      error: 'HTTP 500',
      duration_ms: expect.any(Number),
      at: expect.any(String),
    });
  });

  it('a delivery failing every attempt of the ladder ends failed with each attempt logged', async () => {
    const path = freshPath();
    const ep = await endpoint(sandbox, path);
    receiver.queue(path, { status: 500 }, { status: 500 }, { status: 500 });
    await approved();
    const delivery = await settledDelivery(ep.id);
    expect(delivery).toMatchObject({ status: 'failed', attempt_count: 3, next_attempt_at: null });
    expect(delivery.attempts).toHaveLength(3);
    expect(receiver.requests.filter(atPath(path))).toHaveLength(3);
  });

  it('429 with Retry-After defers without consuming an attempt, honouring the delay', async () => {
    const path = freshPath();
    const ep = await endpoint(sandbox, path);
    // Without the exemption the third failure would end the ladder before the 200.
    receiver.queue(
      path,
      { status: 500 },
      { status: 429, headers: { 'Retry-After': '2' } },
      { status: 503 },
      { status: 500 },
    );
    await approved();
    const requests = await receiver.waitFor(5, atPath(path), 25_000);
    expect(requests[2]!.at - requests[1]!.at).toBeGreaterThanOrEqual(2000);
    const delivery = await settledDelivery(ep.id);
    expect(delivery).toMatchObject({ status: 'delivered', attempt_count: 3 });
    expect(
      delivery.attempts.map((a: { status_code: number; deferred?: boolean }) => [a.status_code, a.deferred ?? false]),
    ).toEqual([
      [500, false],
      [429, true],
      [503, true],
      [500, false],
      [200, false],
    ]);
  });

  it('410 Gone disables the endpoint; it receives nothing more', async () => {
    const path = freshPath();
    const ep = await endpoint(sandbox, path);
    receiver.queue(path, { status: 410 });
    await approved();
    expect(await settledDelivery(ep.id)).toMatchObject({ status: 'failed', attempt_count: 1 });
    expect(await endpointStatus(ep.id)).toBe('disabled');
    const other = freshPath();
    await endpoint(sandbox, other);
    await approved();
    await receiver.waitFor(1, atPath(other));
    expect(receiver.requests.filter(atPath(path))).toHaveLength(1);
  });

  it('does not follow redirects: a 3xx is a failed attempt and the Location is never called', async () => {
    const path = freshPath();
    const ep = await endpoint(sandbox, path);
    receiver.queue(
      path,
      { status: 302, headers: { Location: `${receiver.url}/redirected` } },
      { status: 301, headers: { Location: '/redirected' } },
      { status: 307, headers: { Location: '/redirected' } },
    );
    await approved();
    const delivery = await settledDelivery(ep.id);
    expect(delivery).toMatchObject({ status: 'failed', attempt_count: 3 });
    expect(delivery.attempts[0]).toMatchObject({ status_code: 302, error: 'redirect not followed' });
    expect(receiver.requests.filter(atPath('/redirected'))).toHaveLength(0);
  });
});

describe('routing', () => {
  it('api_key_ids: only the listed keys’ traffic is delivered; PATCH without it keeps routing, [] clears it', async () => {
    const minted = await server.request('/v1/api-keys', {
      token: sandbox,
      body: { name: 'second', environment: 'sandbox' },
    });
    const second = minted.body.secret_key as string;
    const path = freshPath();
    const ep = await endpoint(sandbox, path, { api_key_ids: [minted.body.id] });
    const fromFirst = await approved(sandbox);
    const fromSecond = await approved(second);
    await receiver.waitFor(1, atPath(path));
    await new Promise((r) => setTimeout(r, 2500)); // give the first key's event time to (wrongly) arrive
    expect(receiver.requests.filter(atPath(path)).map(verificationIdOf)).toEqual([fromSecond]);
    expect(fromFirst).not.toBe(fromSecond);
    await server.request(`/v1/webhooks/${ep.id}`, {
      token: sandbox,
      method: 'PATCH',
      body: { description: 'kept routing' },
    });
    expect(
      (await server.request('/v1/webhooks', { token: sandbox })).body.data.find((e: { id: string }) => e.id === ep.id)
        .api_key_ids,
    ).toEqual([minted.body.id]);
    await server.request(`/v1/webhooks/${ep.id}`, { token: sandbox, method: 'PATCH', body: { api_key_ids: [] } });
    const afterClear = await approved(sandbox);
    await waitFor(
      async () => receiver.requests.filter(atPath(path)).some((r) => verificationIdOf(r) === afterClear),
      15_000,
      'first key traffic after clearing',
    );
  });

  it('api_key_ids: an event is the traffic of the key whose call caused it (tagging, a refused repeat), not of the key that created the verification', async () => {
    const minted = await server.request('/v1/api-keys', {
      token: sandbox,
      body: { name: 'tagger', environment: 'sandbox' },
    });
    const second = minted.body.secret_key as string;
    const path = freshPath();
    await endpoint(sandbox, path, {
      api_key_ids: [minted.body.id],
      events: ['verification.tag_added', 'verification.already_verified'],
    });
    const reference = `route-${Date.now()}`;
    const first = await server.request('/v1/verifications', {
      token: sandbox,
      body: { applicant: { reference_id: reference }, sandbox: { outcome: 'approved' } },
    });
    await waitFor(
      async () =>
        (await server.request(`/v1/verifications/${first.body.id}`, { token: sandbox })).body.status === 'approved',
      15_000,
      'approval',
    );
    expect(
      (await server.request(`/v1/verifications/${first.body.id}/tags`, { token: second, body: { names: ['routed'] } }))
        .status,
    ).toBe(200);
    const refused = await server.request('/v1/verifications', {
      token: second,
      body: { applicant: { reference_id: reference } },
    });
    expect(refused.body.error.code).toBe('ALREADY_VERIFIED');
    const got = await receiver.waitFor(2, atPath(path), 15_000);
    expect(got.map((r) => JSON.parse(r.body).type).sort()).toEqual([
      'verification.already_verified',
      'verification.tag_added',
    ]);
    expect(got.every((r) => verificationIdOf(r) === first.body.id)).toBe(true);
  });

  it('environment separation: a sandbox endpoint never receives live events and the reverse', async () => {
    const sandboxPath = freshPath();
    const livePath = freshPath();
    await endpoint(sandbox, sandboxPath, { events: ['verification.created'] });
    await endpoint(live, livePath, { events: ['verification.created'] });
    const liveVerification = await server.request('/v1/verifications', { token: live, body: {} });
    expect(liveVerification.status).toBe(201);
    const sandboxId = await approved(sandbox);
    const [liveReq] = await receiver.waitFor(1, atPath(livePath));
    const [sandboxReq] = await receiver.waitFor(1, atPath(sandboxPath));
    await new Promise((r) => setTimeout(r, 2000));
    expect(receiver.requests.filter(atPath(livePath)).map(verificationIdOf)).toEqual([liveVerification.body.id]);
    expect(receiver.requests.filter(atPath(sandboxPath)).map(verificationIdOf)).toEqual([sandboxId]);
    expect(JSON.parse(liveReq!.body).mode).toBe('live');
    expect(JSON.parse(sandboxReq!.body).mode).toBe('sandbox');
  });

  it('deleting an endpoint stops its deliveries, pending retries included', async () => {
    const path = freshPath();
    const witness = freshPath();
    const ep = await endpoint(sandbox, path);
    await endpoint(sandbox, witness);
    receiver.queue(path, { status: 500, delayMs: 0 });
    await approved();
    await receiver.waitFor(1, atPath(path));
    await server.request(`/v1/webhooks/${ep.id}`, { token: sandbox, method: 'DELETE' });
    await approved();
    await receiver.waitFor(2, atPath(witness));
    await new Promise((r) => setTimeout(r, 1500));
    expect(receiver.requests.filter(atPath(path)).length).toBeLessThanOrEqual(1);
    const [row] = await server.sql(`select status, last_error from webhook_deliveries where endpoint_id = $1`, [ep.id]);
    expect(row).toMatchObject({ status: 'failed', last_error: 'endpoint deleted' });
  });
});
