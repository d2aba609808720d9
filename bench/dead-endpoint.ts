import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBase62 } from '../src/ids.js';
import { call, expectStatus } from './api.js';
import { openPool } from './database.js';
import type { Measurement } from './load.js';
import type { BenchContext, Comparison, Scenario } from './scenarios.js';
import { pendingCreate } from './verifications.js';

/**
 * Issue 27: POST /v1/verifications while another account's webhook endpoint is dead and has a
 * backlog of due deliveries (BENCH_DEAD_BACKLOG, default 5,000, each with its Agenda job), as a
 * long outage leaves it. Creates must keep their ratio: deliveries have their own job slots, an
 * endpoint at most 32 attempts in flight, and one that keeps failing is paused.
 */
const BACKLOG = Number(process.env.BENCH_DEAD_BACKLOG ?? 5_000);
const RUN = randomBase62(8).toLowerCase();

/** A URL on 127.0.0.1 where nothing listens (connections are refused). */
async function deadUrl(): Promise<string> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/gone`;
}

async function createWithBacklog(ctx: BenchContext): Promise<Measurement> {
  const other = await ctx.bootstrap(`dead-endpoint-${RUN}`);
  const created = await call(`${ctx.serviceUrl}/v1/webhooks`, other.sandboxKey, 'POST', {
    url: await deadUrl(),
    events: ['verification.tag_added'],
  });
  expectStatus(created, 201, 'POST /v1/webhooks (dead endpoint; run with WEBHOOK_ALLOW_PRIVATE_NETWORKS=true)');
  const endpointId = created.body.id as string;
  const pool = openPool(ctx);
  try {
    await pool.query(
      `insert into webhook_deliveries (id, merchant_id, mode, created_at, updated_at, endpoint_id, event_id, event_type, test, body, next_attempt_at, attempts)
       select 'del_dead' || $4 || g, $1, 'sandbox', now(), now(), $2, 'evt_dead' || $4 || g, 'verification.tag_added', false, '{}', now(), '[]'::jsonb
       from generate_series(1, $3::int) g`,
      [other.merchantId, endpointId, BACKLOG, RUN],
    );
    await pool.query(
      `insert into agenda_jobs (name, next_run_at, data) select 'webhooks.deliver', now(), jsonb_build_object('deliveryId', 'del_dead' || $2 || g, 'endpointId', $3::text) from generate_series(1, $1::int) g`,
      [BACKLOG, RUN, endpointId],
    );
    ctx.log(`  ${BACKLOG} due deliveries (and their jobs) to a dead endpoint of another account`);
    return await ctx.measure({
      url: `${ctx.serviceUrl}/v1/verifications`,
      method: 'POST',
      headers: { authorization: `Bearer ${ctx.sandboxKey}` },
      perRequest: pendingCreate,
    });
  } finally {
    // Later scenarios measure without the backlog.
    await pool.query(`delete from agenda_jobs where name = 'webhooks.deliver' and data->>'deliveryId' like $1`, [
      `del_dead${RUN}%`,
    ]);
    await pool.query(`update webhook_endpoints set deleted_at = now() where id = $1`, [endpointId]);
    await pool.end();
  }
}

export const deadEndpointScenarios: Scenario[] = [
  {
    name: 'verifications-create-dead-endpoint',
    label: `service POST /v1/verifications, ${BACKLOG} due deliveries to a dead endpoint`,
    run: createWithBacklog,
  },
];

export const deadEndpointComparisons: Comparison[] = [
  // Create keeps its ratio to the raw-pg ceiling while a dead endpoint's backlog is worked.
  {
    name: 'create-dead-endpoint/sql-ceiling',
    numerator: 'verifications-create-dead-endpoint',
    denominator: 'verifications-create-sql',
    target: 0.5,
  },
  // Context: the same create without the backlog.
  {
    name: 'create-dead-endpoint/create',
    numerator: 'verifications-create-dead-endpoint',
    denominator: 'verifications-create',
  },
];
