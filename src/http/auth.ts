import type { Context, Next } from 'koa';
import { scopedFork } from '../orm.js';
import type { Runtime } from '../runtime.js';
import { withLazyFork, type ServiceContext } from '../services/shared/index.js';
import {
  authenticateKey,
  authenticateMember,
  bearerToken,
  type RateLimitState,
  authorize,
  type Requirement,
} from '../services/access/index.js';
import { recordKeyCall, statusOfError } from '../services/logs/index.js';

/** Token cost of a call (decisions.md): 1, except lookup at 1 per 50 addresses, rounded up. */
export function costOf(ctx: Context): number {
  if (ctx.method === 'POST' && ctx.path === '/v1/verifications/lookup') {
    const emails = (ctx.request.body as { emails?: unknown } | undefined)?.emails;
    if (Array.isArray(emails) && emails.length > 0) return Math.ceil(Math.min(emails.length, 1000) / 50);
  }
  return 1;
}

function setRateHeaders(ctx: Context, state: RateLimitState): void {
  ctx.set('RateLimit-Limit', String(state.limit));
  ctx.set('RateLimit-Remaining', String(state.remaining));
  ctx.set('RateLimit-Reset', String(state.resetSeconds));
}

/** Secret-key authentication and rate limiting for the key-authenticated `/v1` surface. */
export function keyAuthentication(runtime: Runtime) {
  return async (ctx: Context, next: Next): Promise<void> => {
    const started = performance.now();
    let auth;
    try {
      // The root EntityManager only lends its connection here (a raw statement, no entities).
      auth = await authenticateKey(
        runtime.orm.em,
        bearerToken(ctx.get('authorization')),
        costOf(ctx),
        runtime.config.rateLimitPerMinute,
        runtime.keyCache,
      );
    } catch (error) {
      const state = (error as { rateLimit?: RateLimitState }).rateLimit;
      if (state) setRateHeaders(ctx, state);
      throw error;
    }
    setRateHeaders(ctx, auth.rateLimit);
    const modes = [auth.caller.mode];
    const scope = { merchantId: auth.merchantId, modes };
    ctx.state.svc = withLazyFork(
      {
        requestId: ctx.state.requestId,
        log: ctx.state.log,
        merchantId: auth.merchantId,
        caller: auth.caller,
        modes,
        runtime,
        surface: 'api',
      },
      () => scopedFork(runtime.orm, scope),
    );
    // The request log (batched, never awaited): every call of an authenticated key, failures included.
    let status: number | undefined;
    try {
      await next();
    } catch (error) {
      status = statusOfError(error);
      throw error;
    } finally {
      const { method, path, querystring } = ctx;
      recordKeyCall(runtime, {
        merchantId: auth.merchantId,
        caller: auth.caller,
        method,
        path,
        querystring,
        status: status ?? ctx.status,
        durationMs: performance.now() - started,
        requestId: ctx.state.requestId,
        remoteAddress: ctx.req.socket.remoteAddress,
      });
    }
  };
}

/** Team-member session authentication for `/v1/console/*` and `/graphql`. */
export function memberAuthentication(runtime: Runtime) {
  return async (ctx: Context, next: Next): Promise<void> => {
    const auth = await authenticateMember(runtime.orm.em, bearerToken(ctx.get('authorization')));
    const modes = auth.caller.environments;
    const scope = { merchantId: auth.merchantId, modes };
    const surface = ctx.path === '/graphql' ? 'graphql' : 'console';
    ctx.state.svc = withLazyFork(
      {
        requestId: ctx.state.requestId,
        log: ctx.state.log,
        merchantId: auth.merchantId,
        caller: auth.caller,
        modes,
        runtime,
        surface,
      },
      () => scopedFork(runtime.orm, scope),
    );
    await next();
  };
}

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Route guard: the caller must hold `permission`; writes are refused to read-only keys. */
export function requirePermission(permission: Requirement['permission'], options: { write?: boolean } = {}) {
  return async (ctx: Context, next: Next): Promise<void> => {
    await authorize(ctx.state.svc as ServiceContext, {
      permission,
      write: options.write ?? !READ_METHODS.has(ctx.method),
    });
    await next();
  };
}

export const svc = (ctx: Context): ServiceContext => ctx.state.svc as ServiceContext;
