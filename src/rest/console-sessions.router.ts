import Router from '@koa/router';
import { systemFork } from '../orm.js';
import type { Runtime } from '../runtime.js';
import { signIn, signOut } from '../services/access/index.js';
import { memberAuthentication, svc } from '../http/auth.js';
import { signInBody } from './schemas.js';
import type { ConsoleSessionDeletedOut, ConsoleSessionOut } from '../contracts/index.js';
import { parseInput } from './validate.js';

/** POST /v1/console/sessions (sign in) and DELETE /v1/console/sessions/current (sign out). */
export function consoleSessionsRouter(runtime: Runtime): Router {
  const router = new Router();
  router.post('/v1/console/sessions', async (ctx) => {
    const body = parseInput(signInBody, ctx.request.body);
    const issued = await signIn(
      systemFork(runtime.orm),
      body.email,
      body.password,
      runtime.config.memberSessionTtlSeconds,
      { limiter: runtime.signInThrottle, ip: ctx.ip },
    );
    ctx.status = 201;
    ctx.body = {
      object: 'console_session',
      token: issued.token,
      expires_at: issued.expiresAt.toISOString(),
    } satisfies ConsoleSessionOut;
  });
  router.delete('/v1/console/sessions/current', memberAuthentication(runtime), async (ctx) => {
    await signOut(svc(ctx));
    ctx.body = { object: 'console_session', deleted: true } satisfies ConsoleSessionDeletedOut;
  });
  return router;
}
