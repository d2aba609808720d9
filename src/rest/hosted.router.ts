import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Router from '@koa/router';
import type { Context } from 'koa';
import type { Runtime } from '../runtime.js';

/**
 * The page's static files: plain ES modules and CSS, no build step. From src/rest they are
 * in src/hosted/public; from the tsc build (dist/rest) the same folder is read in place.
 */
function publicDir(): string {
  const candidates = ['../hosted/public/', '../../src/hosted/public/'].map((rel) =>
    fileURLToPath(new URL(rel, import.meta.url)),
  );
  const found = candidates.find((dir) => fs.existsSync(path.join(dir, 'page.html')));
  if (!found) throw new Error(`hosted page files not found (looked in ${candidates.join(', ')})`);
  return found;
}

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};
const ASSET = /^[a-z0-9-]+\.(js|css|svg)$/;

/**
 * The strict policy of the page: its own scripts and styles only (no inline script or
 * style), images from the flow's https logo, camera frames as blobs, and requests to the
 * service itself and to the store the presigned PUTs go to.
 */
function contentSecurityPolicy(storeOrigin: string): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data: blob: https:",
    "media-src 'self' blob: mediastream:",
    `connect-src 'self' ${storeOrigin}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** The store's origin as the browser sees it: the origin of a presigned URL (computed locally, once). */
async function storeOriginOf(runtime: Runtime): Promise<string> {
  const sample = await runtime.storage.presignPut('csp-probe', 'image/jpeg', 60);
  return new URL(sample).origin;
}

/**
 * GET /verify/{id}: the hosted applicant page (issue 16). The server sends the same static
 * shell for every id and knows nothing of the applicant; the page reads the client token
 * from the URL fragment (never sent to the server, so never in a log) and calls the
 * applicant API with it. GET /verify/assets/{file}: its modules and stylesheet.
 */
export function hostedRouter(runtime: Runtime): Router {
  const router = new Router();
  const dir = publicDir();
  const shell = fs.readFileSync(path.join(dir, 'page.html'));
  let csp: Promise<string> | undefined;
  const policy = () => (csp ??= storeOriginOf(runtime).then(contentSecurityPolicy));

  const pageHeaders = async (ctx: Context) => {
    ctx.set('Content-Security-Policy', await policy());
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.set('X-Frame-Options', 'DENY');
    ctx.set('Permissions-Policy', 'camera=(self), microphone=(), geolocation=()');
  };

  router.get('/verify/assets/:file', async (ctx) => {
    const file = ctx.params.file!;
    if (!ASSET.test(file) || !fs.existsSync(path.join(dir, file))) {
      ctx.status = 404;
      ctx.type = 'text/plain';
      ctx.body = 'Not found';
      return;
    }
    ctx.set('Content-Type', TYPES[path.extname(file)]!);
    ctx.set('Cache-Control', 'no-cache');
    ctx.body = fs.createReadStream(path.join(dir, file));
  });

  router.get('/verify/:id', async (ctx) => {
    await pageHeaders(ctx);
    ctx.set('Cache-Control', 'no-store');
    ctx.type = 'html';
    // An id that cannot be a session still gets the page, which explains the link is not valid.
    ctx.status = /^vs_[0-9A-Za-z]{1,64}$/.test(ctx.params.id!) ? 200 : 404;
    ctx.body = shell;
  });

  return router;
}
