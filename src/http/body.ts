import type { Context, Next } from 'koa';
import { ApiError, invalidRequest } from '../errors.js';

/** Deepest nesting of arrays and objects a JSON body may have (the spec's bodies need 6). */
export const MAX_JSON_DEPTH = 32;

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

const hasBody = (ctx: Context): boolean => {
  const length = ctx.get('content-length');
  return (length !== '' && length !== '0') || ctx.get('transfer-encoding') !== '';
};

/**
 * Before the body parser: a write whose body is not declared as JSON answers 415
 * UNSUPPORTED_MEDIA_TYPE instead of being ignored (a form post must not create a default,
 * billed verification). A write without a body stays allowed where the endpoint allows one.
 */
export async function requireJsonBody(ctx: Context, next: Next): Promise<void> {
  const api = ctx.path === '/graphql' || ctx.path === '/v1' || ctx.path.startsWith('/v1/');
  if (api && WRITE_METHODS.has(ctx.method) && hasBody(ctx) && !ctx.is('application/json', 'application/*+json')) {
    throw new ApiError(
      415,
      'invalid_request_error',
      'UNSUPPORTED_MEDIA_TYPE',
      `Send the request body as JSON with "Content-Type: application/json" (got ${ctx.get('content-type') || 'no content type'}).`,
    );
  }
  await next();
}

/** How deeply `value` nests arrays and objects, counted without recursion (a hostile body cannot exhaust the stack). */
export function jsonDepthExceeds(value: unknown, limit = MAX_JSON_DEPTH): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (current === null || typeof current !== 'object') continue;
    if (depth + 1 > limit) return true;
    for (const child of Array.isArray(current) ? current : Object.values(current)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
  return false;
}

/** After the body parser, before authentication: 400 PARAMETER_INVALID for a body nested deeper than MAX_JSON_DEPTH. */
export async function limitJsonDepth(ctx: Context, next: Next): Promise<void> {
  const body = (ctx.request as { body?: unknown }).body;
  if (jsonDepthExceeds(body)) {
    throw invalidRequest(
      'PARAMETER_INVALID',
      `The request body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels.`,
      { param: 'body' },
    );
  }
  await next();
}

/**
 * The path (`applicant.email`, `checks[0].type`) of the first string or key holding a NUL
 * character (no store accepts one), or null; walked without recursion.
 */
export function pathOfNulCharacter(value: unknown, root = ''): string | null {
  const stack: [unknown, string][] = [[value, root]];
  while (stack.length > 0) {
    const [current, path] = stack.pop()!;
    if (typeof current === 'string') {
      if (current.includes('\u0000')) return path || 'body';
      continue;
    }
    if (current === null || typeof current !== 'object') continue;
    const entries: [string, unknown, string][] = Array.isArray(current)
      ? current.map((item, index) => [String(index), item, `${path}[${index}]`])
      : Object.entries(current).map(([key, item]) => [key, item, path ? `${path}.${key}` : key]);
    if (!Array.isArray(current)) {
      const bad = entries.find(([key]) => key.includes('\u0000'));
      if (bad) return bad[2].replace(/\u0000/g, '');
    }
    // Pushed in reverse so the first field is examined first, as a reader would name it.
    for (let i = entries.length - 1; i >= 0; i--) stack.push([entries[i]![1], entries[i]![2]]);
  }
  return null;
}
