import http from 'node:http';

/**
 * The baseline: the cheapest JSON endpoint node:http can serve, with the same body shape as
 * the service's /healthz, so the healthz/bare ratio isolates what Koa + middleware cost.
 * Run as its own process so it never shares an event loop with the load generator.
 */
const port = Number(process.env.PORT ?? 0);
const host = process.env.HOST ?? '127.0.0.1';

const server = http.createServer((_req, res) => {
  const body = JSON.stringify({ status: 'ok', service: 'bare', time: new Date().toISOString() });
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
});

server.listen(port, host, () => {
  const address = server.address();
  console.log(`bare listening on ${typeof address === 'object' && address ? address.port : port}`);
});

const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
