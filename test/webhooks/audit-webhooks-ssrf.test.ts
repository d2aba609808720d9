import { startReceiver, type Receiver } from '../support/receiver.js';
import { withTestServer } from '../support/account.js';
import type { TestServer } from '../support/test-server.js';
import { waitFor } from '../support/wait.js';

// Webhooks issue, URL validation and SSRF guard: "http(s) only, no credentials in the URL,
// private/loopback/link-local/CGNAT/metadata addresses refused at creation and re-checked on
// every delivery against the resolved address actually connected".

let server: TestServer;
let receiver: Receiver;
let sandbox: string;

withTestServer(
  async (s) => {
    // Production setting: private targets refused. The receiver on 127.0.0.1 must never be called.
    server = s;
    sandbox = (await server.bootstrap()).keys.sandbox.secret_key;
  },
  { env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'false', WEBHOOK_RETRY_SCHEDULE: '0,1' } },
);
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(() => receiver.close());

const create = (url: string) =>
  server.request('/v1/webhooks', { token: sandbox, body: { url, events: ['verification.created'] } });
const patch = (id: string, body: Record<string, unknown>) =>
  server.request(`/v1/webhooks/${id}`, { token: sandbox, method: 'PATCH', body });

it.each([
  ['a scheme other than http(s)', 'ftp://93.184.215.14/hook'],
  ['credentials in the URL', 'https://user:secret@93.184.215.14/hook'],
  ['a username alone', 'https://user@93.184.215.14/hook'],
])('refuses %s at creation with 400 PARAMETER_INVALID on url', async (_name, url) => {
  const res = await create(url);
  expect(res.status).toBe(400);
  expect(res.body.error).toMatchObject({ type: 'invalid_request_error', code: 'PARAMETER_INVALID', param: 'url' });
});

it('PATCH re-applies the guard: moving an endpoint to a private, loopback or metadata address is refused and the url stays', async () => {
  const created = await create('https://93.184.215.14/hook');
  expect(created.status).toBe(201);
  for (const url of [
    'http://10.1.2.3/hook',
    'http://127.0.0.1:9/hook',
    'http://169.254.169.254/latest',
    'http://[::ffff:192.168.0.1]/hook',
    'https://u:p@93.184.215.14/hook',
  ]) {
    const res = await patch(created.body.id, { url });
    expect([url, res.status, res.body.error?.param]).toEqual([url, 400, 'url']);
  }
  const listed = (await server.request('/v1/webhooks', { token: sandbox })).body.data.find(
    (e: { id: string }) => e.id === created.body.id,
  );
  expect(listed.url).toBe('https://93.184.215.14/hook');
});

it('re-checked on every delivery: an endpoint whose address became private is never called; the attempt is logged as refused', async () => {
  const created = await create('https://93.184.215.14/hook');
  expect(created.status).toBe(201);
  // What DNS rebinding achieves: the stored target now leads to the receiver on loopback.
  const port = new URL(receiver.url).port;
  await server.sql('update webhook_endpoints set url = $2 where id = $1', [
    created.body.id,
    `http://localhost:${port}/rebound`,
  ]);
  const v = await server.request('/v1/verifications', { token: sandbox, body: {} });
  expect(v.status).toBe(201);
  const delivery = await waitFor(
    async () => {
      const rows = await server.sql('select status, attempts from webhook_deliveries where endpoint_id = $1', [
        created.body.id,
      ]);
      return rows.length > 0 && rows[0].status === 'failed' ? rows[0] : undefined;
    },
    20_000,
    'refused delivery to fail',
  );
  expect(delivery.attempts.length).toBeGreaterThan(0);
  for (const attempt of delivery.attempts)
    expect(attempt).toMatchObject({ status_code: null, error: 'forbidden address' });
  expect(receiver.requests).toHaveLength(0);
});
