import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Context, Next } from 'koa';
import { OPENAPI_PATH } from './openapi/document.js';

/** The files of the API reference page: Swagger UI's own bundle and stylesheet, served from the package. */
const ASSETS: Record<string, string> = {
  'swagger-ui-bundle.js': 'application/javascript; charset=utf-8',
  'swagger-ui.css': 'text/css; charset=utf-8',
};

/** The page's own start-up script (a file, so the policy needs no inline script). */
const INIT = `window.addEventListener('DOMContentLoaded', () => {
  window.SwaggerUIBundle({ url: ${JSON.stringify(OPENAPI_PATH)}, dom_id: '#reference', deepLinking: true, tryItOutEnabled: false, validatorUrl: 'none' });
});
`;

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>idv-platform API reference</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
<script src="/docs/assets/swagger-ui-bundle.js" defer></script>
<script src="/docs/assets/init.js" defer></script>
</head>
<body>
<main id="reference"></main>
</body>
</html>
`;

/**
 * Scripts from this origin only (no inline script, no CDN); Swagger UI sets element styles, so
 * styles may be inline; the page fetches only the OpenAPI document of this origin.
 */
const POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/**
 * GET /docs: the `/v1` API reference rendered from the served OpenAPI document by Swagger UI
 * (`swagger-ui-dist`, from the registry; nothing is loaded from another site). No key needed:
 * it shows the public contract only.
 */
export function apiDocsRoutes() {
  const dir = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  const cache = new Map<string, Buffer>();
  const asset = (name: string) => {
    let body = cache.get(name);
    if (!body) cache.set(name, (body = fs.readFileSync(path.join(dir, name))));
    return body;
  };
  return (ctx: Context, next: Next) => {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
    if (ctx.path === '/docs' || ctx.path === '/docs/') {
      ctx.set('Content-Security-Policy', POLICY);
      ctx.type = 'text/html; charset=utf-8';
      ctx.body = PAGE;
      return Promise.resolve();
    }
    if (!ctx.path.startsWith('/docs/assets/')) return next();
    const name = ctx.path.slice('/docs/assets/'.length);
    if (name === 'init.js') {
      ctx.type = 'application/javascript; charset=utf-8';
      ctx.body = INIT;
    } else if (Object.hasOwn(ASSETS, name)) {
      ctx.type = ASSETS[name]!;
      ctx.set('Cache-Control', 'public, max-age=86400');
      ctx.body = asset(name);
    } else {
      return next();
    }
    return Promise.resolve();
  };
}
