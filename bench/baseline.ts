import type http from 'node:http';

/** Listens on PORT/HOST (the bench passes a free port), prints the port, and closes on SIGTERM or SIGINT. */
export function serveBaseline(name: string, server: http.Server): void {
  const port = Number(process.env.PORT ?? 0);
  const host = process.env.HOST ?? '127.0.0.1';
  server.listen(port, host, () => {
    const address = server.address();
    console.log(`${name} listening on ${typeof address === 'object' && address ? address.port : port}`);
  });
  const stop = () => server.close(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
