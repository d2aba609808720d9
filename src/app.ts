import 'reflect-metadata';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { bodyParser } from '@koa/bodyparser';
import Koa from 'koa';
import { graphqlMiddleware } from './graphql/apollo.js';
import { consoleApp } from './http/console-app.js';
import { limitJsonDepth, requireJsonBody } from './http/body.js';
import { bodyParserError, edge } from './http/middleware.js';
import { securityHeaders } from './http/security-headers.js';
import { apiDocsRoutes } from './rest/api-docs.router.js';
import { hostedRouter } from './rest/hosted.router.js';
import { systemRoutes } from './rest/system.router.js';
import { v1 } from './rest/index.js';
import type { Logger } from './logger.js';
import type { Runtime } from './runtime.js';

export interface App {
  koa: Koa;
  server: http.Server;
  /** Listens on host:port (0 picks a free port); resolves with the base URL. */
  listen(port: number, host?: string): Promise<string>;
  /** Stops accepting requests and waits for the ones in flight. */
  close(): Promise<void>;
}

/** The HTTP surface of one process: `/healthz`, `/v1` (REST), `/graphql` and the `/console` app, over one runtime. */
export async function createApp(runtime: Runtime): Promise<App> {
  const koa = new Koa({ proxy: false });
  const graphql = await graphqlMiddleware(runtime);
  // Errors after the answer began (a failed stream) reach Koa's `error` event, not the edge.
  koa.on('error', (error: Error, ctx?: { state?: { log?: Logger } }) =>
    (ctx?.state?.log ?? runtime.logger).error({ err: error }, 'response failed'),
  );
  koa.use(edge(runtime.logger));
  koa.use(securityHeaders(runtime.config.publicUrl));
  koa.use(systemRoutes());
  koa.use(apiDocsRoutes());
  const hosted = hostedRouter(runtime).routes();
  // Only /verify/* can match the hosted pages; other requests skip the router's matching.
  koa.use((ctx, next) => (ctx.path.startsWith('/verify/') ? hosted(ctx as never, next) : next()));
  // The back-office app at /console, and GraphiQL for a browser's GET /graphql (issue 29).
  koa.use(consoleApp(runtime));
  koa.use(requireJsonBody);
  koa.use(
    bodyParser({
      enableTypes: ['json'],
      // Every JSON media type (application/merge-patch+json, application/foo+json) is read as
      // JSON, as requireJsonBody lets them through: a form body under one is 400 INVALID_JSON,
      // never an ignored body and a default create. (The library merges this list by index.)
      extendTypes: { json: ['application/json', 'application/*+json'] },
      jsonLimit: '1mb',
      onError: (error) => bodyParserError(error as never),
    }),
  );
  koa.use(limitJsonDepth);
  koa.use(graphql.middleware);
  koa.use(v1(runtime));
  const server = http.createServer(koa.callback());
  server.keepAliveTimeout = 65_000;
  return {
    koa,
    server,
    listen: (port, host = '127.0.0.1') =>
      new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          const { port: actual } = server.address() as AddressInfo;
          resolve(`http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${actual}`);
        });
      }),
    close: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await graphql.stop();
    },
  };
}
