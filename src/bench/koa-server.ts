import http from 'node:http';
import Koa from 'koa';
import { serveBaseline } from './baseline.js';

/**
 * The framework floor: a Koa app with one middleware answering the same JSON as /healthz,
 * with the same node flags as the service. What the service's /healthz loses against it is
 * our own layer (request id, error envelope, routing); what this loses against the bare
 * server is Koa's per-request machinery, which any route of a Koa service pays.
 */
const app = new Koa({ proxy: false });
app.use((ctx) => {
  ctx.set('Content-Type', 'application/json; charset=utf-8');
  ctx.body = JSON.stringify({ status: 'ok', service: 'koa', time: new Date().toISOString() });
});

const server = http.createServer(app.callback());
server.keepAliveTimeout = 65_000;
serveBaseline('koa', server);
