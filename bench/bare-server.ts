import http from 'node:http';
import { serveBaseline } from './baseline.js';

/**
 * The baseline: the cheapest JSON endpoint node:http can serve, with the same body shape as
 * the service's /healthz, so the healthz/bare ratio isolates what Koa + middleware cost.
 * Run as its own process so it never shares an event loop with the load generator.
 */
const server = http.createServer((_req, res) => {
  const body = JSON.stringify({ status: 'ok', service: 'bare', time: new Date().toISOString() });
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
});

serveBaseline('bare', server);
