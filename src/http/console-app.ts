import fs from 'node:fs';
import path from 'node:path';
import type { Context, Next } from 'koa';
import type { Runtime } from '../runtime.js';

/** Where `vite build` (console/vite.config.ts) writes the back-office app. */
export const CONSOLE_DIST = path.resolve('console/dist');

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
  '.ico': 'image/x-icon',
};
// A hashed file name of the build: no dot first, so never `.` or `..`.
const ASSET = /^\/console\/assets\/[A-Za-z0-9_-][A-Za-z0-9._-]*\.(js|css|svg|png|woff2|json|ico)$/;

/**
 * The console's policy: its own modules only (no inline script, no eval), inline styles (the
 * component library sets style attributes), evidence images from the store's presigned URLs,
 * requests to /graphql only, never framed.
 */
function contentSecurityPolicy(storeOrigin: string): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    `img-src 'self' data: blob: ${storeOrigin}`,
    "font-src 'self' data:",
    "connect-src 'self'",
    "worker-src 'self' blob:",
    "manifest-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** Accept prefers HTML over JSON: a browser's navigation, not a GraphQL client. */
const wantsPage = (ctx: Context) => ctx.method === 'GET' && ctx.accepts('json', 'html') === 'html' && !ctx.query.query;

/**
 * The back-office app (issue 29): GET /console/assets/* (hashed, immutable) and the app shell for
 * every other /console path and for a browser's GET /graphql (the app shows GraphiQL there to a
 * signed-in member). The shell holds no data: everything comes from /graphql with a session
 * token kept in memory.
 */
export function consoleApp(runtime: Runtime, dist = CONSOLE_DIST) {
  let csp: Promise<string> | undefined;
  const policy = () =>
    (csp ??= runtime.storage
      .presignPut('csp-probe', 'image/jpeg', 60)
      .then((url) => new URL(url).origin)
      .catch(() => '')
      .then(contentSecurityPolicy));
  let shell: Buffer | undefined;
  const readShell = () => (shell ??= fs.readFileSync(path.join(dist, 'index.html')));

  return async (ctx: Context, next: Next): Promise<void> => {
    // A browser opening the service's root lands on the console; API clients still get JSON.
    if (ctx.path === '/' && wantsPage(ctx)) return ctx.redirect('/console');
    const inConsole = ctx.path === '/console' || ctx.path.startsWith('/console/');
    if (!inConsole && !(ctx.path === '/graphql' && wantsPage(ctx))) return next();
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
    if (ASSET.test(ctx.path)) {
      const file = path.join(dist, 'assets', path.basename(ctx.path));
      if (!fs.statSync(file, { throwIfNoEntry: false })?.isFile()) return next();
      ctx.type = TYPES[path.extname(file)] ?? 'application/octet-stream';
      ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
      ctx.body = fs.createReadStream(file);
      return;
    }
    if (!fs.existsSync(path.join(dist, 'index.html'))) {
      ctx.status = 503;
      ctx.type = 'text/plain';
      ctx.body = 'The console is not built: run npm run console:build.';
      return;
    }
    ctx.set('Content-Security-Policy', await policy());
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.set('X-Frame-Options', 'DENY');
    ctx.set('Cache-Control', 'no-store');
    ctx.set('Permissions-Policy', 'camera=(), microphone=(), geolocation=()');
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = readShell();
  };
}
