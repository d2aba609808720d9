import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { call, expectStatus } from './api.js';
import type { Measurement } from './load.js';
import type { BenchContext } from './scenarios.js';

/**
 * What the raw-`pg` ceilings share: the service's embedded PostgreSQL and a loop that runs a
 * task with the bench's concurrency, reporting the same figures autocannon does.
 */

/** Same folder run.ts gives the service child (DATA_DIR). */
export const dataDir = fileURLToPath(new URL('../../.data/bench/', import.meta.url));

/** The service's embedded PostgreSQL: started under DATA_DIR, its port and password in pg-state.json. */
export function databaseUrl(): string {
  if (process.env.BENCH_DATABASE_URL) return process.env.BENCH_DATABASE_URL;
  const state = JSON.parse(fs.readFileSync(path.join(dataDir, 'pg-state.json'), 'utf8')) as {
    port: number;
    password: string;
  };
  return `postgresql://postgres:${encodeURIComponent(state.password)}@127.0.0.1:${state.port}/idv`;
}

const open = new Set<pg.Pool>();

/**
 * One connection per load connection, so the ceiling runs with the same concurrency as
 * autocannon. An idle client's error (the service's database stopping under it) is logged, not
 * an unhandled `error` event; every pool still open when the run ends is closed by closePools.
 */
export function openPool(ctx: BenchContext): pg.Pool {
  const pool = new pg.Pool({ connectionString: databaseUrl(), max: Math.max(ctx.settings.connections, 1) });
  pool.on('error', (error) => ctx.log(`  database client error (ignored): ${error.message}`));
  const end = pool.end.bind(pool);
  pool.end = (async () => {
    open.delete(pool);
    if (!pool.ended) await end();
  }) as typeof pool.end;
  open.add(pool);
  return pool;
}

/** Ends the pools a scenario left open (it failed before its own cleanup); run.ts calls it before stopping the service. */
export async function closePools(): Promise<void> {
  await Promise.all([...open].map((pool) => pool.end().catch(() => undefined)));
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
const round = (x: number) => Math.round(x * 100) / 100;

/**
 * `connections` workers each running `task` back to back for the warm-up, then for the
 * measured seconds; `worker` (0 to connections - 1) lets a task keep its own client.
 */
export async function measureLoop(ctx: BenchContext, task: (worker: number) => Promise<void>): Promise<Measurement> {
  const run = async (seconds: number) => {
    const latencies: number[] = [];
    const deadline = performance.now() + seconds * 1000;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: ctx.settings.connections }, async (_, worker) => {
        while (performance.now() < deadline) {
          const t0 = performance.now();
          await task(worker);
          latencies.push(performance.now() - t0);
        }
      }),
    );
    return { latencies, elapsed: (performance.now() - started) / 1000 };
  };
  if (ctx.settings.warmupSeconds > 0) await run(ctx.settings.warmupSeconds);
  const { latencies, elapsed } = await run(ctx.settings.seconds);
  latencies.sort((a, b) => a - b);
  return {
    requestsPerSecond: round(latencies.length / elapsed),
    latencyP50Ms: round(percentile(latencies, 50)),
    latencyP99Ms: round(percentile(latencies, 99)),
    latencyMaxMs: round(latencies[latencies.length - 1] ?? 0),
    requests: latencies.length,
    durationSeconds: Math.round(elapsed),
    connections: ctx.settings.connections,
    statusCodes: {},
  };
}

/**
 * A sandbox session the engine sends to manual review, created through the API and waited for
 * in the database: the template that the review-queue and console-page benches copy.
 */
export async function reviewTemplate(ctx: BenchContext, pool: pg.Pool, key: string, bench: string): Promise<string> {
  const created = expectStatus(
    await call(`${ctx.serviceUrl}/v1/verifications`, key, 'POST', { sandbox: { outcome: 'review' } }),
    201,
    `POST /v1/verifications (${bench} template)`,
  );
  const templateId = created.body.id as string;
  for (let i = 0; ; i++) {
    const { rowCount } = await pool.query('select 1 from manual_reviews where verification_id = $1', [templateId]);
    if (rowCount) return templateId;
    if (i > 300) throw new Error(`${bench} bench: the template case never reached manual review`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
