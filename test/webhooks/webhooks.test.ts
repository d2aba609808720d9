import { Webhook } from 'standardwebhooks';
import type { BootstrapResult } from '../../src/services/access/index.js';
import { startReceiver, type Receiver, type ReceivedRequest } from '../support/receiver.js';
import type { TestServer } from '../support/test-server.js';
import { withTestAccount } from '../support/account.js';
import { waitFor } from '../support/wait.js';

let server: TestServer;
let receiver: Receiver;
let account: BootstrapResult;
let sandbox: string;
let live: string;

// A shrunk ladder: three attempts, at once then 1 s apart.
withTestAccount((t) => ({ server, account, sandbox, live } = t), { env: { WEBHOOK_RETRY_SCHEDULE: '0,1,1' } });
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(() => receiver.close());

let pathCounter = 0;
const freshPath = () => `/hook-${++pathCounter}`;
const atPath = (path: string) => (r: ReceivedRequest) => r.path === path;

async function createEndpoint(token: string, body: Record<string, unknown>) {
  const res = await server.request('/v1/webhooks', { token, body });
  expect(res.status).toBe(201);
  return res.body as { id: string; signing_secret: string; events: string[]; url: string };
}
const approvedVerification = async (token: string, extra: Record<string, unknown> = {}) => {
  const res = await server.request('/v1/verifications', {
    token,
    body: { sandbox: { outcome: 'approved' }, ...extra },
  });
  expect(res.status).toBe(201);
  return res.body.id as string;
};
const deliveriesOf = async (endpointId: string, token = sandbox) =>
  (await server.request(`/v1/webhooks/${endpointId}/deliveries`, { token })).body.data;
const verify = (secret: string, r: ReceivedRequest, body = r.body) => new Webhook(secret).verify(body, r.headers);

describe('webhook endpoints (GET/POST /v1/webhooks, PATCH/DELETE /v1/webhooks/{id})', () => {
  it('create answers 201 with the signing secret once, adds verification.data_updated, fixes the environment to the key', async () => {
    const created = await createEndpoint(sandbox, {
      url: `${receiver.url}/crud`,
      events: ['verification.approved'],
      description: 'main',
    });
    expect(created).toMatchObject({
      object: 'webhook_endpoint',
      status: 'active',
      api_key_ids: [],
      description: 'main',
      environment: 'sandbox',
    });
    expect(created.id).toMatch(/^whe_[0-9A-Za-z]{24}$/);
    expect(created.signing_secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(created.signing_secret.slice(6), 'base64')).toHaveLength(32);
    expect(created.events.sort()).toEqual(['verification.approved', 'verification.data_updated']);
    const list = await server.request('/v1/webhooks', { token: sandbox });
    const listed = list.body.data.find((e: { id: string }) => e.id === created.id);
    expect(listed).toBeDefined();
    expect(listed.signing_secret).toBeUndefined();
    expect(JSON.stringify(list.body)).not.toContain(created.signing_secret.slice(6));
    // The other environment does not see it.
    expect(
      (await server.request(`/v1/webhooks/${created.id}`, { token: live, method: 'PATCH', body: { description: 'x' } }))
        .status,
    ).toBe(404);
    expect(
      (await server.request('/v1/webhooks', { token: live })).body.data.map((e: { id: string }) => e.id),
    ).not.toContain(created.id);
  });

  it('validates events against the catalogue, the URL shape and unknown fields', async () => {
    const cases: [Record<string, unknown>, string, string][] = [
      [{ url: `${receiver.url}/x`, events: ['verification.exploded'] }, 'PARAMETER_INVALID', 'events'],
      [{ url: 'ftp://example.com/hook', events: ['verification.approved'] }, 'PARAMETER_INVALID', 'url'],
      [{ url: 'https://user:pass@example.com/hook', events: ['verification.approved'] }, 'PARAMETER_INVALID', 'url'],
      [{ url: 'not a url', events: ['verification.approved'] }, 'PARAMETER_INVALID', 'url'],
      [{ events: ['verification.approved'] }, 'PARAMETER_MISSING', 'url'],
      [{ url: `${receiver.url}/x`, events: ['verification.approved'], secret: 'x' }, 'PARAMETER_UNKNOWN', 'secret'],
      [
        {
          url: `${receiver.url}/x`,
          events: ['verification.approved'],
          api_key_ids: ['00000000-0000-0000-0000-000000000000'],
        },
        'PARAMETER_INVALID',
        'api_key_ids',
      ],
      [
        { url: `${receiver.url}/x`, events: ['verification.approved'], api_key_ids: [account.keys.live.id] },
        'PARAMETER_INVALID',
        'api_key_ids',
      ],
    ];
    for (const [body, code, param] of cases) {
      const res = await server.request('/v1/webhooks', { token: sandbox, body });
      expect({ status: res.status, ...res.body.error }).toMatchObject({ status: 400, code, param });
    }
  });

  it('needs webhook:manage', async () => {
    const minted = await server.request('/v1/api-keys', {
      token: sandbox,
      body: { name: 'reader', environment: 'sandbox', permissions: ['verification:read'] },
    });
    const res = await server.request('/v1/webhooks', { token: minted.body.secret_key });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('INSUFFICIENT_PERMISSIONS');
  });

  it('PATCH changes what is sent and leaves the rest; status disabled/active; DELETE answers {id, object, deleted}', async () => {
    const ep = await createEndpoint(sandbox, {
      url: `${receiver.url}/patch`,
      events: ['verification.approved'],
      api_key_ids: [account.keys.sandbox.id],
    });
    const patched = await server.request(`/v1/webhooks/${ep.id}`, {
      token: sandbox,
      method: 'PATCH',
      body: { description: 'renamed', status: 'disabled' },
    });
    expect(patched.body).toMatchObject({
      description: 'renamed',
      status: 'disabled',
      api_key_ids: [account.keys.sandbox.id],
      url: `${receiver.url}/patch`,
    });
    expect(patched.body.signing_secret).toBeUndefined();
    const cleared = await server.request(`/v1/webhooks/${ep.id}`, {
      token: sandbox,
      method: 'PATCH',
      body: { api_key_ids: [], status: 'active' },
    });
    expect(cleared.body).toMatchObject({ api_key_ids: [], status: 'active' });
    expect((await server.request(`/v1/webhooks/${ep.id}`, { token: sandbox, method: 'PATCH', body: {} })).status).toBe(
      400,
    );
    const deleted = await server.request(`/v1/webhooks/${ep.id}`, { token: sandbox, method: 'DELETE' });
    expect(deleted.body).toEqual({ id: ep.id, object: 'webhook_endpoint', deleted: true });
    expect((await server.request(`/v1/webhooks/${ep.id}`, { token: sandbox, method: 'DELETE' })).status).toBe(404);
    expect(
      (await server.request('/v1/webhooks', { token: sandbox })).body.data.map((e: { id: string }) => e.id),
    ).not.toContain(ep.id);
  });
});

describe('delivery', () => {
  it('POSTs the envelope signed per Standard Webhooks; a flipped byte or a re-serialised body fails verification; no identity', async () => {
    const path = freshPath();
    const ep = await createEndpoint(sandbox, { url: `${receiver.url}${path}`, events: ['verification.approved'] });
    const id = await approvedVerification(sandbox, {
      applicant: { email: 'jane.doe@example.com', reference_id: 'customer-4711' },
    });
    const [req] = await receiver.waitFor(1, atPath(path));
    expect(() => verify(ep.signing_secret, req!)).not.toThrow();
    const flipped = req!.body.replace('"object":"event"', '"object":"evenT"');
    expect(() => verify(ep.signing_secret, req!, flipped)).toThrow();
    expect(() => verify(ep.signing_secret, req!, JSON.stringify(JSON.parse(req!.body), null, 1))).toThrow();
    const envelope = JSON.parse(req!.body);
    expect(Object.keys(envelope)).toEqual(['id', 'object', 'type', 'created_at', 'mode', 'test', 'data']);
    expect(envelope).toMatchObject({ object: 'event', type: 'verification.approved', mode: 'sandbox', test: false });
    expect(envelope.id).toMatch(/^evt_/);
    expect(req!.headers['webhook-id']).toBe(envelope.id);
    expect(req!.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(Math.abs(Number(req!.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(30);
    expect(Object.keys(envelope.data.verification).sort()).toEqual([
      'changeReason',
      'decline_type',
      'flow',
      'id',
      'reason_codes',
      'sequence',
      'status',
      'verdict',
    ]);
    expect(envelope.data.verification).toMatchObject({ id, verdict: 'approve', status: 'approved' });
    expect(req!.body).not.toMatch(/jane|customer-4711|example\.com/);
    expect(Buffer.byteLength(req!.body)).toBeLessThan(20 * 1024);
    const [delivery] = await waitFor(async () => {
      const list = await deliveriesOf(ep.id);
      return list.length === 1 && list[0].status === 'delivered' ? list : undefined;
    });
    expect(delivery).toMatchObject({
      object: 'webhook_delivery',
      endpoint_id: ep.id,
      event: 'verification.approved',
      event_id: envelope.id,
      test: false,
      attempt_count: 1,
    });
    expect(delivery.attempts).toEqual([
      expect.objectContaining({ status_code: 200, error: null, duration_ms: expect.any(Number) }),
    ]);
  });
});

describe('secret rotation and test events', () => {
  it('rotate_secret returns a new secret once; the old secret fails and the new one verifies from the next delivery on', async () => {
    const path = freshPath();
    const ep = await createEndpoint(sandbox, { url: `${receiver.url}${path}`, events: ['verification.approved'] });
    const unknownField = await server.request(`/v1/webhooks/${ep.id}/rotate_secret`, {
      token: sandbox,
      body: { overlap_seconds: 60 },
    });
    expect(unknownField.status).toBe(400);
    expect(unknownField.body.error).toMatchObject({ code: 'PARAMETER_UNKNOWN', param: 'overlap_seconds' });
    const rotated = await server.request(`/v1/webhooks/${ep.id}/rotate_secret`, { token: sandbox, method: 'POST' });
    expect(rotated.status).toBe(200);
    expect(rotated.body).toMatchObject({ id: ep.id, object: 'webhook_endpoint' });
    expect(rotated.body.signing_secret).toMatch(/^whsec_/);
    expect(rotated.body.signing_secret).not.toBe(ep.signing_secret);
    await approvedVerification(sandbox);
    const [req] = await receiver.waitFor(1, atPath(path));
    expect(() => verify(rotated.body.signing_secret, req!)).not.toThrow();
    expect(() => verify(ep.signing_secret, req!)).toThrow();
  });

  it('POST /v1/webhooks/{id}/test answers 202 with the pending delivery; the sample goes out signed, test:true, placeholder ids', async () => {
    const path = freshPath();
    const ep = await createEndpoint(sandbox, { url: `${receiver.url}${path}`, events: ['verification.created'] });
    const res = await server.request(`/v1/webhooks/${ep.id}/test`, {
      token: sandbox,
      body: { event: 'verification.approved' },
    });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^del_/),
      object: 'webhook_delivery',
      endpoint_id: ep.id,
      event: 'verification.approved',
      event_id: expect.stringMatching(/^evt_/),
      test: true,
      status: 'pending',
      created_at: expect.any(String),
    });
    const [req] = await receiver.waitFor(1, atPath(path));
    expect(() => verify(ep.signing_secret, req!)).not.toThrow();
    const envelope = JSON.parse(req!.body);
    expect(envelope).toMatchObject({
      id: res.body.event_id,
      type: 'verification.approved',
      test: true,
      mode: 'sandbox',
    });
    expect(envelope.data.verification).toMatchObject({
      id: 'vs_test000000000000000000',
      flow: 'flw_test000000000000000000',
      verdict: 'approve',
    });
    const delivery = await waitFor(async () => {
      const [d] = await deliveriesOf(ep.id);
      return d?.status === 'delivered' ? d : undefined;
    });
    expect(delivery).toMatchObject({ id: res.body.id, test: true, attempt_count: 1 });
    // The default sample is verification.completed; the body may be omitted.
    const plain = await server.request(`/v1/webhooks/${ep.id}/test`, { token: sandbox, method: 'POST' });
    expect(plain.body.event).toBe('verification.completed');
  });

  it('the test event must be in the catalogue and the endpoint active', async () => {
    const ep = await createEndpoint(sandbox, { url: `${receiver.url}/test-rules`, events: ['verification.created'] });
    const unknown = await server.request(`/v1/webhooks/${ep.id}/test`, {
      token: sandbox,
      body: { event: 'verification.exploded' },
    });
    expect(unknown.body.error).toMatchObject({ code: 'PARAMETER_INVALID', param: 'event' });
    await server.request(`/v1/webhooks/${ep.id}`, { token: sandbox, method: 'PATCH', body: { status: 'disabled' } });
    const disabled = await server.request(`/v1/webhooks/${ep.id}/test`, { token: sandbox, body: {} });
    expect(disabled.status).toBe(409);
    expect(disabled.body.error.code).toBe('WEBHOOK_ENDPOINT_DISABLED');
    expect(
      (await server.request('/v1/webhooks/whe_doesnotexist000000000000/test', { token: sandbox, body: {} })).status,
    ).toBe(404);
  });
});
