import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import Koa from 'koa';
import { requestListener } from '../src/request-loop.js';

/**
 * The service's request listener must answer exactly as Koa's own `callback()` would for every
 * kind of body Koa knows: the same app is served both ways and each answer compared on the
 * wire (status, body and the headers that describe it).
 */

interface Wire {
  status: number;
  body: string;
  headers: Record<string, string | undefined>;
}

const COMPARED_HEADERS = ['content-type', 'content-length', 'transfer-encoding', 'x-handler'];

function app(errors: Error[]): Koa {
  const koa = new Koa();
  koa.silent = true;
  koa.on('error', (error: Error) => errors.push(error));
  koa.use(async (ctx, next) => {
    ctx.set('X-Handler', 'yes');
    await next();
  });
  koa.use((ctx) => {
    switch (ctx.path) {
      case '/text':
        ctx.body = 'hello';
        return;
      case '/html':
        ctx.body = '<p>hi</p>';
        return;
      case '/buffer':
        ctx.body = Buffer.from([1, 2, 3]);
        return;
      case '/json':
        ctx.status = 201;
        ctx.body = { a: 1, text: 'é' };
        return;
      case '/no-content':
        ctx.status = 204;
        ctx.body = { ignored: true };
        return;
      case '/explicit-null':
        ctx.status = 200;
        ctx.body = null;
        return;
      case '/status-only':
        ctx.status = 418;
        return;
      case '/stream':
        ctx.type = 'text/plain';
        ctx.body = Readable.from(['a', 'b', 'c']);
        return;
      case '/blob':
        ctx.body = new Blob(['blob body']);
        return;
      case '/web-stream':
        ctx.body = new ReadableStream({
          start(controller) {
            controller.enqueue(new TextEncoder().encode('web '));
            controller.enqueue(new TextEncoder().encode('stream'));
            controller.close();
          },
        });
        return;
      case '/fetch-response':
        ctx.body = new Response('from a Response');
        return;
      case '/broken-stream':
        ctx.body = new Readable({
          read() {
            this.destroy(new Error('source failed'));
          },
        });
        return;
      case '/throws':
        throw Object.assign(new Error('nope'), { status: 422, expose: true });
      case '/crashes':
        throw new Error('secret detail');
      case '/manual':
        ctx.respond = false;
        ctx.res.statusCode = 202;
        ctx.res.end('by hand');
        return;
      default:
        // unanswered: Koa's default 404
        return;
    }
  });
  return koa;
}

async function serve(listener: http.RequestListener): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function wire(base: string, path: string, method = 'GET'): Promise<Wire> {
  const res = await fetch(`${base}${path}`, { method }).catch((error: Error) => ({ error }));
  if ('error' in res) return { status: -1, body: String(res.error.name), headers: {} };
  const body = await res.text().catch(() => '<aborted>');
  return { status: res.status, body, headers: Object.fromEntries(COMPARED_HEADERS.map((name) => [name, res.headers.get(name) ?? undefined])) };
}

const ours: Error[] = [];
const koas: Error[] = [];
let ourServer: Awaited<ReturnType<typeof serve>>;
let koaServer: Awaited<ReturnType<typeof serve>>;

beforeAll(async () => {
  ourServer = await serve(requestListener(app(ours)));
  const reference = app(koas);
  koaServer = await serve(reference.callback());
});
afterAll(async () => {
  await ourServer.close();
  await koaServer.close();
});

describe('requestListener answers as Koa callback() does', () => {
  const cases: Array<[string, string]> = [
    ['GET', '/text'],
    ['GET', '/html'],
    ['GET', '/buffer'],
    ['GET', '/json'],
    ['HEAD', '/json'],
    ['HEAD', '/text'],
    ['GET', '/no-content'],
    ['GET', '/explicit-null'],
    ['GET', '/status-only'],
    ['GET', '/stream'],
    ['GET', '/blob'],
    ['GET', '/web-stream'],
    ['GET', '/fetch-response'],
    ['GET', '/throws'],
    ['GET', '/crashes'],
    ['GET', '/manual'],
    ['GET', '/unknown'],
    ['POST', '/unknown'],
  ];

  it.each(cases)('%s %s', async (method, path) => {
    const expected = await wire(koaServer.url, path, method);
    const actual = await wire(ourServer.url, path, method);
    expect(actual).toEqual(expected);
  });

  it('sends the body and its length as Koa would for each kind of body', async () => {
    expect(await wire(ourServer.url, '/json')).toEqual({
      status: 201,
      body: '{"a":1,"text":"é"}',
      headers: { 'content-type': 'application/json; charset=utf-8', 'content-length': '19', 'transfer-encoding': undefined, 'x-handler': 'yes' },
    });
    const empty = await wire(ourServer.url, '/no-content');
    expect(empty).toMatchObject({ status: 204, body: '', headers: { 'content-type': undefined, 'content-length': undefined } });
    expect(await wire(ourServer.url, '/stream')).toMatchObject({ status: 200, body: 'abc' });
    expect(await wire(ourServer.url, '/blob')).toMatchObject({ status: 200, body: 'blob body' });
    expect(await wire(ourServer.url, '/web-stream')).toMatchObject({ status: 200, body: 'web stream' });
    expect(await wire(ourServer.url, '/fetch-response')).toMatchObject({ status: 200, body: 'from a Response' });
    // Koa keeps an expose-able error's message and hides any other behind the status text.
    expect(await wire(ourServer.url, '/throws')).toMatchObject({ status: 422, body: 'nope' });
    expect(await wire(ourServer.url, '/crashes')).toMatchObject({ status: 500, body: 'Internal Server Error' });
  });

  it("reports failures to the app's error event, a failing stream body included", async () => {
    ours.length = 0;
    await wire(ourServer.url, '/crashes');
    const broken = await wire(ourServer.url, '/broken-stream');
    expect(broken.status === -1 || broken.status === 200).toBe(true);
    for (let i = 0; i < 50 && ours.length < 2; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(ours.map((error) => error.message)).toEqual(expect.arrayContaining(['secret detail', 'source failed']));
  });
});

describe('requestListener hooks', () => {
  const reported: Error[] = [];
  let hooked: Awaited<ReturnType<typeof serve>>;
  beforeAll(async () => {
    hooked = await serve(
      requestListener(app(reported), {
        begin: (ctx) => {
          if (ctx.path === '/begin-throws') throw new Error('begin failed');
          ctx.set('X-Begun', 'yes');
        },
        answered: (ctx) => {
          if (ctx.path === '/answered-throws') throw new Error('hook failed');
          if (ctx.status === 404 && ctx.body === undefined) {
            ctx.status = 404;
            ctx.body = { error: 'route' };
          }
        },
        failed: (ctx, error) => {
          ctx.status = 400;
          ctx.body = { error: (error as Error).message };
        },
      }),
    );
  });
  afterAll(() => hooked.close());

  async function get(path: string) {
    const res = await fetch(`${hooked.url}${path}`);
    return { status: res.status, begun: res.headers.get('x-begun'), body: await res.text() };
  }

  it('runs begin before the middleware and answered before the answer is written', async () => {
    expect(await get('/text')).toEqual({ status: 200, begun: 'yes', body: 'hello' });
    expect(await get('/unknown')).toEqual({ status: 404, begun: 'yes', body: '{"error":"route"}' });
  });

  it('gives a failure of the chain or of begin to failed instead of ctx.onerror', async () => {
    reported.length = 0;
    expect(await get('/crashes')).toEqual({ status: 400, begun: 'yes', body: '{"error":"secret detail"}' });
    expect(await get('/begin-throws')).toEqual({ status: 400, begun: null, body: '{"error":"begin failed"}' });
    expect(reported).toEqual([]);
  });

  it('sends a hook that throws to ctx.onerror: a plain 500 and the error event', async () => {
    reported.length = 0;
    expect(await get('/answered-throws')).toMatchObject({ status: 500, body: 'Internal Server Error' });
    expect(reported.map((error) => error.message)).toEqual(['hook failed']);
  });
});
