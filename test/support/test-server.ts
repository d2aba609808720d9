import 'reflect-metadata';
import http from 'node:http';
import pg from 'pg';
import { createApp, type App } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import { randomBase62 } from '../../src/ids.js';
import { migrate, openOrm, systemFork } from '../../src/orm.js';
import { startRuntime, type Runtime } from '../../src/runtime.js';
import type { Logger } from '../../src/logger.js';
import { testLogger } from './logs.js';
import { checkAgainstOpenApi } from './openapi.js';
import { sql } from './db.js';
import { bootstrapAccount, type BootstrapResult } from '../../src/services/access/index.js';

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export interface RequestOptions {
  method?: string;
  token?: string;
  body?: unknown;
  /** Sent as-is instead of JSON-encoding `body`. */
  rawBody?: string;
  headers?: Record<string, string>;
  /** false: skip the OpenAPI check of a /v1 answer (only for a test of the check itself). */
  validate?: boolean;
}

export interface TestServer {
  url: string;
  runtime: Runtime;
  config: Config;
  databaseUrl: string;
  request<T = any>(path: string, options?: RequestOptions): Promise<ApiResponse<T>>;
  graphql<T = any>(
    token: string,
    query: string,
    variables?: Record<string, unknown>,
  ): Promise<ApiResponse<{ data?: T; errors?: any[] }>>;
  /** One SQL statement against this server's database (for asserting what was stored, or arranging what HTTP cannot). */
  sql<T = any>(text: string, params?: unknown[]): Promise<T[]>;
  /** A new, independent account (merchant, owner, sandbox and live keys holding every scope). */
  bootstrap(): Promise<BootstrapResult>;
  close(): Promise<void>;
}

/**
 * A fresh database for one test file, cloned from `idv_template`. The first caller of the
 * run applies the committed migrations to the template; an advisory lock serialises workers.
 */
export async function createTestDatabase(): Promise<string> {
  const admin = process.env.TEST_PG_ADMIN_URL;
  if (!admin) throw new Error('TEST_PG_ADMIN_URL is not set: run the tests with npm test');
  const name = `t_${randomBase62(12).toLowerCase()}`;
  const client = new pg.Client({ connectionString: `${admin}/postgres` });
  await client.connect();
  try {
    await client.query('select pg_advisory_lock(42)');
    const marked = await client.query(`select 1 from pg_database where datname = 'idv_template' and datistemplate`);
    if (marked.rowCount === 0) {
      const orm = await openOrm(`${admin}/idv_template`);
      await migrate(orm);
      await orm.close(true);
      await client.query(`update pg_database set datistemplate = true where datname = 'idv_template'`);
    }
    await client.query(`create database ${name} template idv_template`);
  } finally {
    await client.query('select pg_advisory_unlock(42)').catch(() => undefined);
    await client.end();
  }
  return `${admin}/${name}`;
}

export function testConfig(databaseUrl: string, env: Record<string, string> = {}): Config {
  return loadConfig({
    DATABASE_URL: databaseUrl,
    S3_ENDPOINT: process.env.TEST_S3_ENDPOINT,
    S3_BUCKET: 'idv-test',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    IDENTITY_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
    ...env,
  });
}

/**
 * A real HTTP request over node:http without keep-alive (fetch's pooled sockets and timers
 * would outlive the test file and keep Jest from exiting).
 */
export function request<T = any>(base: string, path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let body: string | undefined = options.rawBody;
  if (options.body !== undefined) body = JSON.stringify(options.body);
  if (body !== undefined) {
    headers['content-type'] ??= 'application/json';
    headers['content-length'] = String(Buffer.byteLength(body));
  }
  const method = options.method ?? (body === undefined ? 'GET' : 'POST');
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}${path}`, { method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: unknown = text;
        try {
          parsed = text ? JSON.parse(text) : undefined;
        } catch {
          /* not JSON: keep the text */
        }
        const responseHeaders = new Headers();
        for (const [name, value] of Object.entries(res.headers)) {
          if (value !== undefined) responseHeaders.set(name, Array.isArray(value) ? value.join(', ') : value);
        }
        try {
          if (options.validate !== false)
            checkAgainstOpenApi(method, path, res.statusCode ?? 0, responseHeaders.get('content-type'), parsed);
        } catch (error) {
          reject(error);
          return;
        }
        resolve({ status: res.statusCode ?? 0, headers: responseHeaders, body: parsed as T });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

/** Boots the real service (database, store, jobs, HTTP on 127.0.0.1) against a fresh database. */
export async function startTestServer(
  options: { env?: Record<string, string>; databaseUrl?: string; workJobs?: boolean; logger?: Logger } = {},
): Promise<TestServer> {
  const databaseUrl = options.databaseUrl ?? (await createTestDatabase());
  const config = testConfig(databaseUrl, options.env);
  const runtime = await startRuntime(config, {
    logger: options.logger ?? testLogger(),
    workJobs: options.workJobs ?? true,
    jobs: { processEvery: 200, lockLifetimeMs: 4000 },
  });
  let app: App;
  try {
    app = await createApp(runtime);
  } catch (error) {
    await runtime.stop();
    throw error;
  }
  const url = await app.listen(0);
  return {
    url,
    runtime,
    config,
    databaseUrl,
    request: (path, requestOptions) => request(url, path, requestOptions),
    graphql: (token, query, variables) => request(url, '/graphql', { token, body: { query, variables } }),
    sql: (text, params) => sql(databaseUrl, text, params),
    bootstrap: () => bootstrapAccount(systemFork(runtime.orm), { sessionTtlSeconds: config.memberSessionTtlSeconds }),
    close: async () => {
      await app.close();
      await runtime.stop();
    },
  };
}
