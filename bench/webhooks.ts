import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { signPayload } from '../src/services/webhooks/index.js';
import type pg from 'pg';
import { openPool } from './database.js';
import type { Measurement } from './load.js';
import type { BenchContext, Scenario } from './scenarios.js';

/**
 * Webhook delivery throughput and enqueue-to-delivery latency to a local receiver, against a
 * ceiling measured in the same run: a plain loop signing and POSTing the same payloads.
 * The service must allow private targets (WEBHOOK_ALLOW_PRIVATE_NETWORKS=true) to reach it.
 */
interface Receiver {
  url: string;
  arrivals: Map<string, number>;
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const arrivals = new Map<string, number>();
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const id = req.headers['webhook-id'];
      if (typeof id === 'string' && !arrivals.has(id)) arrivals.set(id, Date.now());
      res.writeHead(204).end();
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    arrivals,
    close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

function post(url: string, body: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), ...headers },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Runs `count` tasks with `concurrency` in flight, optionally paced to `ratePerSecond`. */
async function pool(
  count: number,
  concurrency: number,
  task: (i: number) => Promise<void>,
  ratePerSecond?: number,
): Promise<void> {
  let next = 0;
  const started = Date.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const i = next++;
        if (ratePerSecond) {
          const due = started + (i * 1000) / ratePerSecond;
          if (due > Date.now()) await new Promise((r) => setTimeout(r, due - Date.now()));
        }
        await task(i);
      }
    }),
  );
}

const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]! : 0;
};

function measurement(count: number, seconds: number, latencies: number[], connections: number): Measurement {
  return {
    requestsPerSecond: Math.round((count / seconds) * 100) / 100,
    latencyP50Ms: percentile(latencies, 50),
    latencyP99Ms: percentile(latencies, 99),
    latencyMaxMs: latencies.length ? Math.max(...latencies) : 0,
    requests: count,
    durationSeconds: Math.round(seconds * 100) / 100,
    connections,
    statusCodes: { '2xx': count },
  };
}

let receiver: Receiver | undefined;
let ceilingRate = 0;
const SECRET = `whsec_${Buffer.alloc(32, 1).toString('base64')}`;
const COUNT = Number(process.env.BENCH_WEBHOOKS ?? 2000);

/** The ceiling: sign and POST the same kind of envelopes straight to the receiver. */
async function ceiling(ctx: BenchContext): Promise<Measurement> {
  receiver ??= await startReceiver();
  const target = receiver;
  const latencies: number[] = [];
  const started = Date.now();
  await pool(COUNT, ctx.settings.connections, async (i) => {
    const id = `evt_ceiling${String(i).padStart(13, '0')}`;
    const body = JSON.stringify({
      id,
      object: 'event',
      type: 'verification.created',
      created_at: new Date().toISOString(),
      mode: 'sandbox',
      test: false,
      data: { verification: { id: `vs_${i}` } },
    });
    const ts = Math.floor(Date.now() / 1000);
    const t0 = Date.now();
    await post(`${target.url}/ceiling`, body, {
      'webhook-id': id,
      'webhook-timestamp': String(ts),
      'webhook-signature': signPayload(SECRET, id, ts, body),
    });
    latencies.push(Date.now() - t0);
  });
  const result = measurement(COUNT, (Date.now() - started) / 1000, latencies, ctx.settings.connections);
  ceilingRate = result.requestsPerSecond;
  return result;
}

const api = (ctx: BenchContext, path: string, body: unknown) =>
  post(`${ctx.serviceUrl}${path}`, JSON.stringify(body), { authorization: `Bearer ${ctx.sandboxKey}` });

/** Waits until `expected` new deliveries arrived after the first `since` (or 60 s passed); returns their arrival times. */
async function arrivalsOf(target: Receiver, expected: number, since: number): Promise<number[]> {
  const deadline = Date.now() + 60_000;
  while (target.arrivals.size - since < expected && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  return [...target.arrivals.entries()].slice(since).map(([, at]) => at);
}

/** Enqueues like a committed change does: `verification.created` rows in the outbox, in one transaction. */
async function enqueue(
  client: pg.PoolClient,
  merchantId: string,
  template: { verification_id: string; payload: unknown },
  ids: string[],
): Promise<number> {
  await client.query(
    `insert into events (id, merchant_id, mode, type, verification_id, api_key_id, payload, test, created_at, updated_at)
     select unnest($1::text[]), $2, 'sandbox', 'verification.created', $3, null, $4::jsonb, false, now(), now()`,
    [ids, merchantId, template.verification_id, JSON.stringify(template.payload)],
  );
  return Date.now();
}

/**
 * The service's delivery path from the outbox on: events are enqueued as committed outbox rows
 * (what any verification change writes), then fanned out, signed, POSTed and logged by the
 * workers. Enqueuing through POST /v1/verifications would measure the create endpoint instead
 * (that has its own scenario). Max rate first (one batch), then latency at half that rate.
 */
async function throughService(ctx: BenchContext): Promise<Measurement> {
  receiver ??= await startReceiver();
  const target = receiver;
  const status = await api(ctx, '/v1/webhooks', { url: `${target.url}/service`, events: ['verification.created'] });
  if (status !== 201)
    throw new Error(`creating the bench endpoint answered ${status}; run with WEBHOOK_ALLOW_PRIVATE_NETWORKS=true`);
  if ((await api(ctx, '/v1/verifications', { sandbox: { outcome: 'pending' } })) !== 201)
    throw new Error('POST /v1/verifications failed');
  await arrivalsOf(target, 1, target.arrivals.size);
  const db = openPool(ctx);
  const client = await db.connect();
  try {
    const [template] = (
      await client.query(
        `select verification_id, payload from events where merchant_id = $1 and type = 'verification.created' order by created_at desc limit 1`,
        [ctx.merchantId],
      )
    ).rows;
    if (!template) throw new Error('no verification.created event to copy');
    const idsFor = (label: string, n: number) =>
      Array.from({ length: n }, (_, i) => `evt_bench${label}${Date.now().toString(36)}${String(i).padStart(7, '0')}`);

    let since = target.arrivals.size;
    const enqueuedAt = await enqueue(client, ctx.merchantId, template, idsFor('max', COUNT));
    await arrivalsOf(target, COUNT, since);
    const delivered = target.arrivals.size - since;
    const rate = delivered / ((Math.max(...[...target.arrivals.values()].slice(since)) - enqueuedAt) / 1000);
    ctx.log(
      `  max: ${delivered}/${COUNT} delivered, ${rate.toFixed(0)} deliveries/s (ceiling ${ceilingRate.toFixed(0)}/s, ratio ${(rate / (ceilingRate || 1)).toFixed(2)})`,
    );

    const half = Math.max(1, rate / 2);
    const count = Math.max(50, Math.round(half * ctx.settings.seconds));
    const ids = idsFor('paced', count);
    const enqueued = new Map<string, number>();
    since = target.arrivals.size;
    const started = Date.now();
    for (const [i, id] of ids.entries()) {
      const due = started + (i * 1000) / half;
      if (due > Date.now()) await new Promise((r) => setTimeout(r, due - Date.now()));
      enqueued.set(id, await enqueue(client, ctx.merchantId, template, [id]));
    }
    await arrivalsOf(target, count, since);
    const latencies = ids
      .map((id) => (target.arrivals.get(id) ?? Date.now()) - enqueued.get(id)!)
      .map((ms) => Math.max(0, ms));
    ctx.log(
      `  at ${half.toFixed(0)}/s: enqueue-to-delivery p50 ${percentile(latencies, 50)} ms, p99 ${percentile(latencies, 99)} ms (target p99 < 1000 ms)`,
    );
    return {
      ...measurement(delivered, delivered / rate, latencies, ctx.settings.connections),
      requestsPerSecond: Math.round(rate * 100) / 100,
    };
  } finally {
    client.release();
    await db.end();
    await target.close();
    receiver = undefined;
  }
}

export const webhookScenarios: Scenario[] = [
  { name: 'webhooks-ceiling', label: 'ceiling: sign + POST to a local receiver', run: ceiling },
  { name: 'webhooks', label: 'webhooks: outbox to delivered (deliveries/s)', run: throughService },
];
