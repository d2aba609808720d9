import http from 'node:http';
import { MAX_DOCUMENT_BYTES, MAX_DOCUMENT_TOKENS } from '../../src/graphql/limits.js';
import type { BootstrapResult } from '../../src/services/access/index.js';
import { capturingLogger } from '../support/logs.js';
import type { TestServer } from '../support/test-server.js';
import { withTestAccount } from '../support/account.js';

// Apollo includes stack traces outside NODE_ENV test/production; serve as a developer would run it.
process.env.NODE_ENV = 'development';

let server: TestServer;
let account: BootstrapResult;
const log = capturingLogger('info');
const errorLines = () =>
  log.lines.map((line) => JSON.parse(line) as { level: number }).filter((line) => line.level >= 50);
withTestAccount(
  (t) => ({ server, account } = t),
  () => ({ logger: log.logger, env: { GRAPHQL_RATE_LIMIT_PER_MINUTE: '100000' } }),
);

const run = (query: string, variables?: Record<string, unknown>) =>
  server.graphql(account.member.session_token, query, variables);

/** The abusive documents of issue 27: each must answer 400 quickly, never 500 and never a stack. */
const abusive = {
  'a 1 MB document': `{ viewer { ${'environments '.repeat(80_000)} } }`,
  'a fragment cycle': 'query { viewer { ...A } } fragment A on Viewer { ...B } fragment B on Viewer { ...A }',
  'a self-referencing fragment': 'query { viewer { ...A } } fragment A on Viewer { environments ...A }',
  'an unknown fragment': 'query { viewer { ...Nowhere } }',
  '330k duplicate fields': `{ viewer { ${'e '.repeat(330_000)}} }`,
  'too many tokens in a small document': `{ viewer { ${'e '.repeat(MAX_DOCUMENT_TOKENS + 10)}} }`,
};

const expectNoInternals = (body: unknown) => {
  const text = JSON.stringify(body);
  expect(text).not.toContain('stacktrace');
  expect(text).not.toMatch(/\/work\/|node_modules|\.ts:\d+|RangeError|Maximum call stack/);
};

describe('malformed and oversized GraphQL documents answer 400 (issue 27)', () => {
  it.each(Object.entries(abusive))(
    '%s: 400, a clear code, no stack trace in the answer or the log',
    async (_name, query) => {
      log.lines.length = 0;
      const res = await run(query);
      expect(res.status).toBe(400);
      expect(res.body.errors?.length).toBeGreaterThan(0);
      expect(res.body.errors![0].extensions.code).toEqual(
        expect.stringMatching(/^(GRAPHQL_PARSE_FAILED|GRAPHQL_VALIDATION_FAILED|DOCUMENT_TOO_LARGE)$/),
      );
      expectNoInternals(res.body);
      expect(errorLines()).toEqual([]);
    },
  );

  it('a document over the byte limit is refused before it is parsed, naming the limit', async () => {
    const res = await run(`{ viewer { environments } }${' '.repeat(MAX_DOCUMENT_BYTES)}`);
    expect(res.status).toBe(400);
    expect(res.body.errors![0].extensions).toMatchObject({
      code: 'DOCUMENT_TOO_LARGE',
      type: 'invalid_request_error',
      limit: MAX_DOCUMENT_BYTES,
    });
  });

  it('a wrongly typed variable is 400 BAD_USER_INPUT, not a 500 with a stack trace in the log', async () => {
    log.lines.length = 0;
    const res = await run('query($n: Int) { verifications(first: $n) { nodes { id } } }', { n: 'abc' });
    expect(res.status).toBe(400);
    expect(res.body.errors![0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', type: 'invalid_request_error' });
    expectNoInternals(res.body);
    expect(errorLines()).toEqual([]);
    const missing = await run('query($n: Int!) { verifications(first: $n) { nodes { id } } }', {});
    expect(missing.status).toBe(400);
  });

  it('an ordinary document and a deep but legitimate fragment still run', async () => {
    const res = await run('query { viewer { ...V } } fragment V on Viewer { environments }');
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
  });
});

/** A request over its own socket with a prebuilt body (the senders must not load this process's loop). */
function post(path: string, body: Buffer, token: string): Promise<number> {
  return new Promise((resolve) => {
    const req = http.request(
      `${server.url}${path}`,
      {
        method: 'POST',
        agent: false,
        headers: {
          'content-type': 'application/json',
          'content-length': String(body.length),
          authorization: `Bearer ${token}`,
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', () => resolve(0));
    req.end(body);
  });
}

function healthz(): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    http
      .get(`${server.url}/healthz`, { agent: false }, (res) => {
        res.resume();
        res.on('end', () => resolve(performance.now() - started));
      })
      .on('error', reject);
  });
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};

async function sampleHealthz(count: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < count; i++) out.push(await healthz());
  return out;
}

describe('abusive GraphQL senders do not freeze the event loop (issue 27)', () => {
  /** /healthz latencies while eight senders each post one of `bodies` every `everyMs`. */
  async function healthzUnder(bodies: Buffer[], everyMs: number): Promise<{ latencies: number[]; statuses: number[] }> {
    let stop = false;
    const statuses: number[] = [];
    const sender = async (n: number) => {
      for (let i = n; !stop; i++) {
        const next = new Promise((r) => setTimeout(r, everyMs));
        statuses.push(await post('/graphql', bodies[i % bodies.length]!, account.member.session_token));
        await next;
      }
    };
    const senders = Array.from({ length: 8 }, (_, n) => sender(n));
    await new Promise((r) => setTimeout(r, 2 * everyMs));
    const latencies = await sampleHealthz(200);
    stop = true;
    await Promise.all(senders);
    return { latencies, statuses };
  }

  it('eight senders of abusive documents at once do not freeze /healthz (its median and p90 stay within a few times what ordinary documents cost)', async () => {
    await sampleHealthz(20);
    const quiet = await sampleHealthz(200);
    // Issue 27: two senders, 16 documents of 1 MB in 10 s, pushed /healthz p50 from 2.5 ms to 1.3 s.
    // Here eight senders each post every 400 ms (20 a second together).
    const ordinary = await healthzUnder([Buffer.from(JSON.stringify({ query: '{ viewer { environments } }' }))], 400);
    expect(new Set(ordinary.statuses)).toEqual(new Set([200]));
    const abused = await healthzUnder(
      Object.values(abusive).map((query) => Buffer.from(JSON.stringify({ query }))),
      400,
    );
    expect(abused.statuses.length).toBeGreaterThan(16);
    expect(abused.statuses.filter((s) => s !== 400)).toEqual([]);
    // The 2x p99 target itself is measured by `npm run bench` (healthz-graphql-abusive against
    // healthz-graphql-ordinary). A p99 of 200 samples is their second slowest: on a shared 2-core
    // machine (CI runs two test files at once) one collector pause or a neighbour's burst moves it
    // by more than itself, and it made this test fail once with nothing frozen. Here the median and
    // the p90, which a frozen loop (p50 1.3 s before the fix) cannot keep near the ordinary figures.
    const bound = (p: number, floorMs: number) =>
      Math.max(3 * percentile(ordinary.latencies, p), 3 * percentile(quiet, p), floorMs);
    expect(percentile(abused.latencies, 50)).toBeLessThan(bound(50, 100));
    expect(percentile(abused.latencies, 90)).toBeLessThan(bound(90, 250));
  }, 60_000);
});
