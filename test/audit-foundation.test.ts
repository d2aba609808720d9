import 'reflect-metadata';
import { createApp, type App } from '../src/app.js';
import { bootstrapAccount } from '../src/services/access/index.js';
import { systemFork } from '../src/orm.js';
import { startRuntime, type Runtime } from '../src/runtime.js';
import { sql } from './support/db.js';
import { capturingLogger } from './support/logs.js';
import { createTestDatabase, request, testConfig } from './support/test-server.js';

// Foundation issue, Errors: "an unexpected error gives api_error with the request id and is
// logged with it"; Embedded defaults: SIGTERM/SIGINT "stop the server, the jobs, the store and
// the database in order".

let runtime: Runtime;
let app: App;
let url: string;
let databaseUrl: string;
const captured = capturingLogger('info');
/** Every JSON line the runtime logged so far. */
const entries = (): Record<string, any>[] => captured.lines.map((line) => JSON.parse(line));

beforeAll(async () => {
  databaseUrl = await createTestDatabase();
  runtime = await startRuntime(testConfig(databaseUrl), { logger: captured.logger, workJobs: true, jobs: { processEvery: 200, lockLifetimeMs: 4000 } });
  app = await createApp(runtime);
  url = await app.listen(0);
});
afterAll(async () => {
  // The shutdown test stops them; this only runs when it failed before doing so.
  await app?.close().catch(() => undefined);
  await runtime?.stop().catch(() => undefined);
});

describe('an unexpected error on REST', () => {
  it('answers 500 api_error INTERNAL_ERROR with the request id, shows no internals, and is logged with the same request id', async () => {
    const account = await bootstrapAccount(systemFork(runtime.orm), { sessionTtlSeconds: 3600 });
    const token = account.keys.sandbox.secret_key;
    expect((await request(url, '/v1/tags', { token })).status).toBe(200);
    // A store fault the request cannot have caused: the table the route reads is gone.
    await sql(databaseUrl, 'alter table tags rename to tags_moved_away');
    try {
      const res = await request(url, '/v1/tags', { token, headers: { 'x-request-id': 'audit-internal-1' } });
      expect(res.status).toBe(500);
      expect(res.headers.get('x-request-id')).toBe('audit-internal-1');
      expect(res.body.error).toMatchObject({ type: 'api_error', code: 'INTERNAL_ERROR', request_id: 'audit-internal-1' });
      expect(Object.keys(res.body.error).sort()).toEqual(['code', 'message', 'request_id', 'type']);
      expect(JSON.stringify(res.body)).not.toMatch(/tags|relation|select|at .*\.ts/i);
      const logged = entries().filter((entry) => entry.request_id === 'audit-internal-1' && entry.level === 'error');
      expect(logged).toHaveLength(1);
      expect(logged[0]).toMatchObject({ method: 'GET', path: '/v1/tags', err: { message: expect.stringMatching(/relation "tags" does not exist/) } });
      // The access line of the same request carries the same id.
      expect(entries().find((entry) => entry.request_id === 'audit-internal-1' && entry.msg === 'request')).toMatchObject({ status: 500 });
    } finally {
      await sql(databaseUrl, 'alter table tags_moved_away rename to tags');
    }
    expect((await request(url, '/v1/tags', { token })).status).toBe(200);
  });
});

describe('shutdown', () => {
  it('runtime.stop (what SIGTERM runs once the server is closed) stops the jobs, then the webhook sender and the outbox listener, then the store client, then the database connections', async () => {
    await app.close();
    await runtime.stop();
    const stopped = entries().map((entry) => String(entry.msg)).filter((msg) => msg.startsWith('stopped ')).map((msg) => msg.slice('stopped '.length));
    expect(stopped).toEqual(['jobs', 'webhook sender', 'outbox listener', 'store client', 'database connections']);
    // The server no longer answers.
    await expect(request(url, '/healthz')).rejects.toThrow();
  });
});
