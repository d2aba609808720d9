import { withTestServer } from '../support/account.js';
import type { TestServer } from '../support/test-server.js';

let server: TestServer;
withTestServer((s) => (server = s));

describe('GET /healthz', () => {
  it('answers 200 {status, service, time} without authentication', async () => {
    const res = await server.request('/healthz');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.body).toEqual({ status: 'ok', service: expect.any(String), time: expect.any(String) });
    expect(Number.isNaN(Date.parse(res.body.time))).toBe(false);
    expect(res.headers.get('x-request-id')).toMatch(/^req_/);
  });

  it('answers HEAD with the headers and no body, and other methods with the 404 envelope', async () => {
    const head = await fetch(`${server.url}/healthz`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(head.headers.get('x-request-id')).toMatch(/^req_/);
    expect(await head.text()).toBe('');
    const post = await server.request('/healthz', { method: 'POST' });
    expect(post.status).toBe(404);
    expect(post.body.error).toMatchObject({ type: 'not_found_error', code: 'ROUTE_NOT_FOUND' });
  });
});

describe('X-Request-Id', () => {
  it('echoes a safe caller value on the response and in error.request_id', async () => {
    const res = await server.request('/v1/merchant', { headers: { 'x-request-id': 'corr-123.abc' } });
    expect(res.headers.get('x-request-id')).toBe('corr-123.abc');
    expect(res.body.error.request_id).toBe('corr-123.abc');
  });

  it('issues a new req_ id when the caller sends none or an unsafe value', async () => {
    const none = await server.request('/healthz');
    expect(none.headers.get('x-request-id')).toMatch(/^req_[0-9A-Za-z]{24}$/);
    const unsafe = await server.request('/healthz', { headers: { 'x-request-id': 'a b<script>' } });
    expect(unsafe.headers.get('x-request-id')).toMatch(/^req_/);
    const tooLong = await server.request('/healthz', { headers: { 'x-request-id': 'x'.repeat(201) } });
    expect(tooLong.headers.get('x-request-id')).toMatch(/^req_/);
  });
});

describe('error envelope', () => {
  it('answers an unknown route with 404 ROUTE_NOT_FOUND in the envelope', async () => {
    const { secret } = await keyOf(server);
    const res = await server.request('/v1/no-such-thing', { token: secret });
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({
      type: 'not_found_error',
      code: 'ROUTE_NOT_FOUND',
      request_id: res.headers.get('x-request-id'),
    });
  });

  it('answers malformed JSON with 400 INVALID_JSON, never a 500', async () => {
    const { secret } = await keyOf(server);
    const res = await server.request('/v1/api-keys', { token: secret, method: 'POST', rawBody: '{"name": "x",' });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: 'invalid_request_error', code: 'INVALID_JSON' });
  });

  it('answers a JSON body that is not an object with 400 PARAMETER_INVALID', async () => {
    const { secret } = await keyOf(server);
    const res = await server.request('/v1/api-keys', { token: secret, method: 'POST', rawBody: '[1,2]' });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('PARAMETER_INVALID');
  });
});

async function keyOf(s: TestServer) {
  const account = await s.bootstrap();
  return { secret: account.keys.sandbox.secret_key, account };
}
