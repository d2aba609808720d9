import compose from 'koa-compose';
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
import { OPENAPI_PATH, openApiJson } from './openapi/document.js';

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
];

/** Routers of the back office (`/v1/console/*`), acting for a team member. */
const consoleRouters = () => [settingsRouter()];

/** Every /v1 router (the OpenAPI test checks each of their routes is documented in openapi/routes.ts). */
export const v1Routers = (runtime: Runtime) => [...keyRouters(), consoleSessionsRouter(runtime), ...consoleRouters()];

/**
 * `/v1`: the console surface takes member sessions only, everything else secret keys only.
 * Sign-in is the one unauthenticated console route; the OpenAPI document needs no key.
 */
export function v1(runtime: Runtime): Middleware {
  const sessions = consoleSessionsRouter(runtime).routes();
  const consoleApp = compose([memberAuthentication(runtime), ...consoleRouters().map((r) => r.routes())] as Middleware[]);
  const keyApp = compose([keyAuthentication(runtime), ...keyRouters().map((r) => r.routes())] as Middleware[]);
  return async (ctx: Context, next: Next) => {
    if (ctx.path === '/v1' || ctx.path.startsWith('/v1/')) {
      await rejectNulCharacters(ctx, async () => undefined);
      if (ctx.path === OPENAPI_PATH && (ctx.method === 'GET' || ctx.method === 'HEAD')) {
        ctx.type = 'application/json';
        ctx.body = openApiJson();
        return;
      }
      if (ctx.path === '/v1/console/sessions' || ctx.path.startsWith('/v1/console/sessions/')) return sessions(ctx as never, next);
      if (ctx.path.startsWith('/v1/console/')) return consoleApp(ctx, next);
      return keyApp(ctx, next);
    }
    return next();
  };
}
