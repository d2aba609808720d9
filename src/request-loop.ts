import type http from 'node:http';
import Stream from 'node:stream';
import type Koa from 'koa';
import type { Context } from 'koa';
import compose from 'koa-compose';

/** Statuses whose responses carry no body (Koa's `statuses.empty`). */
const EMPTY_BODY_STATUS = new Set([204, 205, 304]);

/**
 * What the loop runs around the middleware chain for every request. Without hooks a failure goes
 * to Koa's `ctx.onerror`, as under Koa's own `callback()`.
 */
export interface RequestHooks {
  /** Before the first middleware (the request id). */
  begin?(ctx: Context): void;
  /** After the chain settled without a failure, before the answer is written. */
  answered?(ctx: Context): void;
  /** Instead of `ctx.onerror` when the chain failed; sets the answer that is then written. */
  failed?(ctx: Context, error: unknown): void;
}

/**
 * The process's request listener: Koa's context, middleware chain and error handling, with the
 * answer written by `respond` below instead of Koa's `callback()`. Koa's own loop also puts
 * `on-finished` listeners on every response and its socket (an async resource plus four
 * listeners added and removed per request) so that a socket error during the answer reaches
 * `ctx.onerror`; every body this service sends is a string, a Buffer or JSON written by one
 * `res.end`, and streams are piped with `Stream.pipeline`, which reports their errors itself, so
 * those listeners bought nothing here and cost about a sixth of the throughput of the cheapest
 * routes (README, Benchmarks). The hooks take the place of an outermost middleware, whose
 * dispatch and promise hop every request would pay. Everything else is Koa's: `createContext`,
 * `koa.middleware` composed by koa-compose, `ctx.onerror` and the app's `error` event.
 */
export function requestListener(koa: Koa, hooks: RequestHooks = {}): http.RequestListener {
  const run = compose(koa.middleware as compose.Middleware<Context>[]);
  if (!koa.listenerCount('error')) koa.on('error', koa.onerror.bind(koa));
  const { begin, answered, failed } = hooks;
  /** Runs a hook, then writes the answer; anything either throws goes to `ctx.onerror`. */
  const complete = (ctx: Context, hook?: (ctx: Context) => void) => {
    try {
      hook?.(ctx);
      respond(ctx);
    } catch (unexpected) {
      ctx.onerror(unexpected as Error);
    }
  };
  return (req, res) => {
    const ctx = koa.createContext(req, res);
    res.statusCode = 404;
    let chain: Promise<void>;
    try {
      begin?.(ctx);
      chain = run(ctx);
    } catch (error) {
      chain = Promise.reject(error);
    }
    chain.then(
      () => complete(ctx, answered),
      (error: unknown) => (failed ? complete(ctx, (c) => failed(c, error)) : ctx.onerror(error as Error)),
    );
  };
}

/** Writes `ctx.body` with the meaning Koa gives it (empty statuses, HEAD, null, text, Buffer, stream, JSON). */
export function respond(ctx: Context): void {
  if (ctx.respond === false) return;
  const res = ctx.res;
  if (!ctx.writable) {
    res.end();
    return;
  }
  const body: unknown = ctx.body;
  if (EMPTY_BODY_STATUS.has(ctx.status)) {
    ctx.body = null; // Koa strips the body's headers on this assignment
    res.end();
    return;
  }
  if (ctx.method === 'HEAD') {
    if (!res.headersSent && !res.hasHeader('Content-Length') && Number.isInteger(ctx.response.length)) {
      ctx.length = ctx.response.length;
    }
    res.end();
    return;
  }
  if (body === null || body === undefined) {
    // A handler's deliberate `ctx.body = null` is an empty answer; otherwise the status text
    // (the service's hooks answer unmatched requests before this, with the 404 envelope).
    if ((ctx.response as { _explicitNullBody?: boolean })._explicitNullBody) {
      ctx.remove('Content-Type');
      ctx.remove('Transfer-Encoding');
      ctx.length = 0;
      res.end();
      return;
    }
    const text = ctx.message || String(ctx.status);
    if (!res.headersSent) {
      ctx.type = 'text';
      ctx.length = Buffer.byteLength(text);
    }
    res.end(text);
    return;
  }
  if (typeof body === 'string' || Buffer.isBuffer(body)) {
    res.end(body);
    return;
  }
  const stream = streamOf(body);
  if (stream) {
    Stream.pipeline(stream, res, (error) => {
      if (error) ctx.onerror(error);
    });
    return;
  }
  const json = JSON.stringify(body);
  if (!res.headersSent) ctx.length = Buffer.byteLength(json);
  res.end(json);
}

/** A body Koa sends as a stream (node stream, web stream, Blob, fetch Response) as a node stream; null for anything else. */
function streamOf(body: unknown): Stream.Readable | null {
  if (body instanceof Stream) return body as Stream.Readable;
  if (body instanceof Blob) return Stream.Readable.from(body.stream());
  if (body instanceof ReadableStream) return Stream.Readable.from(body);
  if (body instanceof Response) return Stream.Readable.from(body.body ?? '');
  return null;
}
