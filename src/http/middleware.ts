import type { Context, Middleware, Next } from 'koa';
import { ApiError, fromDatabaseError, internalError, invalidRequest, parameterInvalid } from '../errors.js';
import { newId } from '../ids.js';
import { pathOfNulCharacter } from './body.js';
import type { Logger } from '../logger.js';
import { maskPath, maskRoute } from '../services/logs/index.js';

const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,200}$/;

/** Echoes a safe caller `X-Request-Id`, else issues a `req_` id; set on every response. */
function assignRequestId(ctx: Context): void {
  const supplied = ctx.get('x-request-id');
  ctx.state.requestId = supplied && SAFE_REQUEST_ID.test(supplied) ? supplied : newId('req');
  ctx.set('X-Request-Id', ctx.state.requestId);
}

/** Parse failures of the body parser become the spec's INVALID_JSON / PAYLOAD_TOO_LARGE. */
export function bodyParserError(error: Error & { status?: number; type?: string }): never {
  if (error.status === 413 || error.type === 'entity.too.large') {
    throw new ApiError(413, 'invalid_request_error', 'PAYLOAD_TOO_LARGE', 'The request body is too large.');
  }
  if (error.status === 415)
    throw invalidRequest('UNSUPPORTED_MEDIA_TYPE', 'Send the request body as application/json.');
  throw invalidRequest('INVALID_JSON', 'The request body is not valid JSON.');
}

/** The spec's envelope for any failure: ApiErrors as they are, anything else a logged, opaque api_error. */
function renderError(ctx: Context, caught: unknown, log: Logger): void {
  let error: ApiError;
  if (caught instanceof ApiError) error = caught;
  else if (fromDatabaseError(caught)) error = fromDatabaseError(caught)!;
  else {
    const status = (caught as { status?: number }).status;
    if (status === 405)
      error = new ApiError(
        405,
        'invalid_request_error',
        'METHOD_NOT_ALLOWED',
        `${ctx.method} is not allowed on ${ctx.path}.`,
      );
    else {
      log.error({ err: caught, method: ctx.method, path: maskPath(ctx.path) }, 'unhandled error');
      error = internalError();
    }
  }
  ctx.status = error.status;
  for (const [name, value] of Object.entries(error.headers ?? {})) ctx.set(name, value);
  ctx.body = { error: error.toEnvelope(ctx.state.requestId) };
}

/**
 * The outermost middleware: the request id and the request's child logger (`ctx.state.log`,
 * every line carrying `request_id`) first, then an unanswered request rendered as 404
 * ROUTE_NOT_FOUND and any failure as the spec's envelope, so no error reaches Koa's plain-text
 * `ctx.onerror`; last one access line (path masked as in the request log, without the query string).
 */
export function edge(logger: Logger): Middleware {
  return async (ctx, next) => {
    const started = performance.now();
    assignRequestId(ctx);
    const log: Logger = (ctx.state.log = logger.child({ request_id: ctx.state.requestId }));
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        renderError(
          ctx,
          new ApiError(
            404,
            'not_found_error',
            'ROUTE_NOT_FOUND',
            `Unrecognized request URL (${ctx.method} ${ctx.path}).`,
          ),
          log,
        );
      }
    } catch (caught) {
      renderError(ctx, caught, log);
    }
    if (log.isLevelEnabled('debug')) {
      // Redaction (logger.ts) removes identity, secrets and tokens from what the caller sent.
      // A GraphQL document may inline values as literals, so only its operation name and variables are logged.
      const body = (ctx.request as { body?: Record<string, unknown> }).body;
      const input = ctx.path === '/graphql' ? { operationName: body?.operationName, variables: body?.variables } : body;
      log.debug(
        { query: ctx.querystring ? maskRoute('', ctx.querystring).slice(1) : undefined, body: input },
        'request input',
      );
    }
    // The path as the request log stores it: an email or a secret typed into a URL is masked.
    log.info(
      {
        method: ctx.method,
        path: maskPath(ctx.path),
        status: ctx.status,
        ms: Math.round((performance.now() - started) * 10) / 10,
      },
      'request',
    );
  };
}

/** Refuses a NUL character anywhere in the query or the JSON body with 400 PARAMETER_INVALID naming the field. */
export async function rejectNulCharacters(ctx: Context, next: Next): Promise<void> {
  const param = pathOfNulCharacter(ctx.query) ?? pathOfNulCharacter((ctx.request as { body?: unknown }).body);
  if (param) throw parameterInvalid(param, 'must not contain a NUL character');
  await next();
}
