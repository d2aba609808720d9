import type Router from '@koa/router';
import compose from 'koa-compose';
import { ApiError } from '../errors.js';
import type { Context, Middleware, Next } from 'koa';
import type { Runtime } from '../runtime.js';
import { accountRouter } from './account.router.js';
import { apiKeysRouter } from './api-keys.router.js';
import { keyAuthentication, memberAuthentication } from '../http/auth.js';
import { consoleSessionsRouter } from './console-sessions.router.js';
import { applicantsRouter } from './applicants.router.js';
import { flowsRouter } from './flows.router.js';
import { tagsRouter } from './tags.router.js';
import { uploadsRouter } from './uploads.router.js';
import { usageRouter } from './usage.router.js';
import { verificationsRouter } from './verifications.router.js';
import { webhooksRouter } from './webhooks.router.js';
import { lookupRouter } from './lookup.router.js';
import { rejectNulCharacters } from '../http/middleware.js';
import { manualReviewsRouter } from './manual-reviews.router.js';
import { reverificationRouter } from './reverification.router.js';
import { settingsRouter } from './settings.router.js';
import { consoleReviewsRouter } from './console-reviews.router.js';
import { consoleVerificationsRouter } from './console-verifications.router.js';
import { consoleMembersRouter } from './console-members.router.js';
import { consoleLogsRouter } from './console-logs.router.js';
import { consoleExportsRouter } from './console-exports.router.js';
import { consoleReportingRouter } from './console-reporting.router.js';
import { OPENAPI_PATH, openApiJson } from './openapi/document.js';
import { applicantRouter, clientTokenRouter } from './applicant.router.js';

/** Routers of the key-authenticated surface (`/v1/*` outside `/v1/console`). */
const keyRouters = () => [
  apiKeysRouter(),
  accountRouter(),
  lookupRouter(),
  verificationsRouter(),
  manualReviewsRouter(),
  reverificationRouter(),
  uploadsRouter(),
  flowsRouter(),
  tagsRouter(),
  applicantsRouter(),
  usageRouter(),
  webhooksRouter(),
  clientTokenRouter(),
];

/** Routers of the back office (`/v1/console/*`), acting for a team member. */
const consoleRouters = () => [
  settingsRouter(),
  consoleReviewsRouter(),
  consoleVerificationsRouter(),
  consoleMembersRouter(),
  consoleLogsRouter(),
  consoleExportsRouter(),
  consoleReportingRouter(),
];

/** Every /v1 router (the OpenAPI test checks each of their routes is documented in openapi/routes.ts). */
export const v1Routers = (runtime: Runtime) => [
  ...keyRouters(),
  consoleSessionsRouter(runtime),
  ...consoleRouters(),
  applicantRouter(runtime),
];

/**
 * A path that exists answered with a method it does not take: 405 METHOD_NOT_ALLOWED with
 * `Allow`, before authentication (a 404 would tell the caller the path does not exist).
 */
function allowedMethods(routers: Router[]): (ctx: Context) => void {
  return (ctx) => {
    const methods = new Set<string>();
    for (const router of routers) {
      const match = router.match(ctx.path, ctx.method);
      if (match.pathAndMethod.length > 0) return;
      for (const layer of match.path) for (const method of layer.methods) methods.add(method);
    }
    if (ctx.path === OPENAPI_PATH) methods.add('GET').add('HEAD');
    if (methods.size === 0 || (ctx.path === OPENAPI_PATH && (ctx.method === 'GET' || ctx.method === 'HEAD'))) return;
    if (methods.has('GET')) methods.add('HEAD');
    throw new ApiError(
      405,
      'invalid_request_error',
      'METHOD_NOT_ALLOWED',
      `${ctx.method} is not allowed on ${ctx.path}; allowed: ${[...methods].join(', ')}.`,
      {
        headers: { Allow: [...methods].join(', ') },
      },
    );
  };
}

/**
 * `/v1`: the console surface takes member sessions only, everything else secret keys only.
 * Sign-in is the one unauthenticated console route; the OpenAPI document needs no key.
 */
export function v1(runtime: Runtime): Middleware {
  const sessions = consoleSessionsRouter(runtime).routes();
  const consoleApp = compose([
    memberAuthentication(runtime),
    ...consoleRouters().map((r) => r.routes()),
  ] as Middleware[]);
  const keyApp = compose([keyAuthentication(runtime), ...keyRouters().map((r) => r.routes())] as Middleware[]);
  // The hosted page's applicant API: a session's client token, never a secret key.
  const applicantApp = applicantRouter(runtime).routes();
  const allowed = allowedMethods(v1Routers(runtime));
  return async (ctx: Context, next: Next) => {
    if (ctx.path === '/v1' || ctx.path.startsWith('/v1/')) {
      await rejectNulCharacters(ctx, async () => undefined);
      allowed(ctx);
      if (ctx.path === OPENAPI_PATH && (ctx.method === 'GET' || ctx.method === 'HEAD')) {
        ctx.type = 'application/json';
        ctx.body = openApiJson();
        return;
      }
      if (ctx.path === '/v1/console/sessions' || ctx.path.startsWith('/v1/console/sessions/'))
        return sessions(ctx as never, next);
      if (ctx.path.startsWith('/v1/console/')) return consoleApp(ctx, next);
      if (ctx.path.startsWith('/v1/hosted/')) return applicantApp(ctx as never, next);
      return keyApp(ctx, next);
    }
    return next();
  };
}
