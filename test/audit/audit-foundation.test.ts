import 'reflect-metadata';
import { capturingLogger } from '../support/logs.js';
import { request, startTestServer, type TestServer } from '../support/test-server.js';

// Foundation issue, Errors: "an unexpected error gives api_error with the request id and is
// logged with it"; Embedded defaults: SIGTERM/SIGINT "stop the server, the jobs, the store and
// the database in order".

const captured = capturingLogger('info');
/** Every JSON line the runtime logged so far. */
const entries = (): Record<string, any>[] => captured.lines.map((line) => JSON.parse(line));

let server: TestServer;
let url: string;
beforeAll(async () => {
  server = await startTestServer({ logger: captured.logger });
  url = server.url;
});
// The shutdown test closes it; this only matters when that test failed before doing so.
afterAll(() => server?.close().catch(() => undefined));

describe('an unexpected error on REST', () => {
  it('answers 500 api_error INTERNAL_ERROR with the request id, shows no internals, and is logged with the same request id', async () => {
    const account = await server.bootstrap();
    const token = account.keys.sandbox.secret_key;
    expect((await request(url, '/v1/tags', { token })).status).toBe(200);
    // A store fault the request cannot have caused: the table the route reads is gone.
    await server.sql('alter table tags rename to tags_moved_away');
    try {
      const res = await request(url, '/v1/tags', { token, headers: { 'x-request-id': 'audit-internal-1' } });
      expect(res.status).toBe(500);
      expect(res.headers.get('x-request-id')).toBe('audit-internal-1');
      expect(res.body.error).toMatchObject({
        type: 'api_error',
        code: 'INTERNAL_ERROR',
        request_id: 'audit-internal-1',
      });
      expect(Object.keys(res.body.error).sort()).toEqual(['code', 'message', 'request_id', 'type']);
      expect(JSON.stringify(res.body)).not.toMatch(/tags|relation|select|at .*\.ts/i);
      const logged = entries().filter((entry) => entry.request_id === 'audit-internal-1' && entry.level === 'error');
      expect(logged).toHaveLength(1);
      expect(logged[0]).toMatchObject({
        method: 'GET',
        path: '/v1/tags',
        err: { message: expect.stringMatching(/relation "tags" does not exist/) },
      });
      // The access line of the same request carries the same id.
      expect(
        entries().find((entry) => entry.request_id === 'audit-internal-1' && entry.msg === 'request'),
      ).toMatchObject({ status: 500 });
    } finally {
      await server.sql('alter table tags_moved_away rename to tags');
    }
    expect((await request(url, '/v1/tags', { token })).status).toBe(200);
  });
});

describe('shutdown', () => {
  it('runtime.stop (what SIGTERM runs once the server is closed) stops the jobs, then the webhook sender and the outbox listener, then flushes the request log, then the engine pool, the store client and the database connections', async () => {
    await server.close();
    const stopped = entries()
      .map((entry) => String(entry.msg))
      .filter((msg) => msg.startsWith('stopped '))
      .map((msg) => msg.slice('stopped '.length));
    expect(stopped).toEqual([
      'jobs',
      'webhook sender',
      'outbox listener',
      'request log',
      'engine pool',
      'store client',
      'database connections',
    ]);
    // The server no longer answers.
    await expect(request(url, '/healthz')).rejects.toThrow();
  });
});
