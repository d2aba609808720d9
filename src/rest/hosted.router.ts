import Router from '@koa/router';
import { Verification } from '../entities/verification.entity.js';
import { systemFork } from '../orm.js';
import type { Runtime } from '../runtime.js';

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * GET /verify/{id}: the hosted page's first form, showing the session's state (status, steps,
 * expiry) and nothing about the applicant. The full capture flow is later work.
 */
export function hostedRouter(runtime: Runtime): Router {
  const router = new Router();
  router.get('/verify/:id', async (ctx) => {
    const id = ctx.params.id;
    const v = /^vs_[0-9A-Za-z]+$/.test(id) ? await systemFork(runtime.orm).findOne(Verification, { id }, { filters: false }) : null;
    ctx.type = 'html';
    ctx.set('Cache-Control', 'no-store');
    ctx.set('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'");
    if (!v) {
      ctx.status = 404;
      ctx.body = '<!doctype html><title>Not found</title><p>This verification link is not valid.</p>';
      return;
    }
    const steps = v.flowSnapshot.steps.map((s) => `<li>${escape(s.type.replace('_', ' '))}</li>`).join('');
    ctx.body = `<!doctype html><html lang="${escape(v.locale)}"><head><meta charset="utf-8"><title>Identity verification</title></head>
<body style="font-family:system-ui;max-width:40rem;margin:3rem auto">
<h1>Identity verification</h1>
<p>Status: <strong data-status="${escape(v.status)}">${escape(v.status.replace('_', ' '))}</strong></p>
<p>Steps:</p><ol>${steps}</ol>
<p>This link expires at <time datetime="${v.expiresAt.toISOString()}">${v.expiresAt.toISOString()}</time>.</p>
</body></html>`;
  });
  return router;
}
