import { isForbiddenAddress, postWebhook } from '../../src/services/webhooks/index.js';
import { withTestServer } from '../support/account.js';
import type { TestServer } from '../support/test-server.js';
import { startReceiver, type Receiver } from '../support/receiver.js';

let server: TestServer;
let receiver: Receiver;
let sandbox: string;

withTestServer(
  async (s) => {
    // Production setting: private targets refused.
    server = s;
    sandbox = (await server.bootstrap()).keys.sandbox.secret_key;
  },
  { env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'false' } },
);
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(() => receiver.close());

const create = (url: string) =>
  server.request('/v1/webhooks', { token: sandbox, body: { url, events: ['verification.approved'] } });

describe('SSRF guard (WEBHOOK_ALLOW_PRIVATE_NETWORKS=false)', () => {
  it.each([
    ['private 10/8', 'http://10.0.0.1/hook'],
    ['loopback', 'http://127.0.0.1/hook'],
    ['IPv4-mapped IPv6 loopback', 'http://[::ffff:127.0.0.1]/hook'],
    ['decimal IPv4', 'http://2130706433/hook'],
    ['hex IPv4', 'http://0x7f000001/hook'],
    ['octal IPv4', 'http://0177.0.0.1/hook'],
    ['cloud metadata', 'http://169.254.169.254/latest/meta-data'],
    ['CGNAT', 'http://100.64.0.1/hook'],
    ['IPv6 loopback', 'http://[::1]/hook'],
    ['IPv6 unique local', 'https://[fd00::1]/hook'],
    ['unspecified', 'http://0.0.0.0/hook'],
    ['a hostname resolving to loopback', 'http://localhost/hook'],
  ])('refuses %s at creation with 400 PARAMETER_INVALID on url', async (_name, url) => {
    const res = await create(url);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: 'invalid_request_error', code: 'PARAMETER_INVALID', param: 'url' });
  });

  it('accepts a public address', async () => {
    expect((await create('https://93.184.215.14/hook')).status).toBe(201);
  });

  it('classifies addresses, including IPv6 forms that embed an IPv4 one', () => {
    for (const a of [
      '192.168.1.1',
      '172.16.0.1',
      '::ffff:10.0.0.1',
      '::ffff:a9fe:a9fe',
      '64:ff9b::7f00:1',
      '2002:7f00:1::',
      'fe80::1',
      '224.0.0.1',
      '::ffff:0:7f00:1',
      '::ffff:0:127.0.0.1',
      '2001:0:4136:e378:8000:63bf:3fff:fdd2',
      '64:ff9b:1::a00:1',
    ]) {
      expect([a, isForbiddenAddress(a)]).toEqual([a, true]);
    }
    for (const a of ['8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8', '2001:4860:4860::8888'])
      expect([a, isForbiddenAddress(a)]).toEqual([a, false]);
  });

  it('re-checks the address actually connected at delivery: a name resolving to loopback is never called', async () => {
    const port = new URL(receiver.url).port;
    const viaName = await postWebhook(`http://localhost:${port}/rebind`, {}, '{}', false);
    expect(viaName).toMatchObject({ statusCode: null, error: 'forbidden address' });
    const literal = await postWebhook(`http://127.0.0.1:${port}/rebind`, {}, '{}', false);
    expect(literal).toMatchObject({ statusCode: null, error: 'forbidden address' });
    expect(receiver.requests).toHaveLength(0);
    // The same call with the operator's override reaches it.
    expect((await postWebhook(`http://localhost:${port}/rebind`, {}, '{}', true)).statusCode).toBe(200);
  });
});
