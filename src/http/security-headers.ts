import type { Context, Next } from 'koa';

/**
 * Headers every answer carries: `X-Content-Type-Options: nosniff`; `Strict-Transport-Security`
 * when the public URL is https; and `Cache-Control: no-store` on every API answer (/v1,
 * /graphql), since many of them carry a client token, a secret key, a signing secret or
 * identity and no shared cache may keep any of them.
 */
export function securityHeaders(publicUrl: string) {
  const hsts = publicUrl.startsWith('https://');
  return async (ctx: Context, next: Next): Promise<void> => {
    try {
      await next();
    } finally {
      ctx.set('X-Content-Type-Options', 'nosniff');
      if (hsts) ctx.set('Strict-Transport-Security', 'max-age=31536000; includeSubDomains');
      if (ctx.path === '/graphql' || ctx.path === '/v1' || ctx.path.startsWith('/v1/'))
        ctx.set('Cache-Control', 'no-store');
    }
  };
}
