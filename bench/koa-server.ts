import http from 'node:http';
import Koa from 'koa';
import { serveBaseline } from './baseline.js';

/**
 * Stock Koa: an app with one middleware answering the same JSON as /healthz through Koa's own
 * `callback()`, with the same node flags as the service. What this loses against the bare
 * server is Koa's per-request machinery as shipped; the service is served the same way and adds
 * its edge middleware (request id, 404 and failure envelopes), so healthz/koa shows what that adds.
 */
const app = new Koa({ proxy: false });
app.use((ctx) => {
  ctx.set('Content-Type', 'application/json; charset=utf-8');
  ctx.body = JSON.stringify({ status: 'ok', service: 'koa', time: new Date().toISOString() });
});

const server = http.createServer(app.callback());
server.keepAliveTimeout = 65_000;
serveBaseline('koa', server);
