import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { signPayload } from '../services/webhook-delivery.service.js';
import type { Measurement } from './load.js';
import type { BenchContext, Scenario } from './scenarios.js';

/**
 * Webhook delivery throughput and enqueue-to-delivery latency to a local receiver, against a
 * ceiling measured in the same run: a plain loop signing and POSTing the same payloads.
 * The service must allow private targets (WEBHOOK_ALLOW_PRIVATE_NETWORKS=true) to reach it.
 */
interface Receiver { url: string; arrivals: Map<string, number>; close(): Promise<void> }

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
  return { url, arrivals, close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve()))) };
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

function post(url: string, body: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), ...headers } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Runs `count` tasks with `concurrency` in flight, optionally paced to `ratePerSecond`. */
async function pool(count: number, concurrency: number, task: (i: number) => Promise<void>, ratePerSecond?: number): Promise<void> {
  let next = 0;
  const started = Date.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < count) {
      const i = next++;
      if (ratePerSecond) {
        const due = started + (i * 1000) / ratePerSecond;
        if (due > Date.now()) await new Promise((r) => setTimeout(r, due - Date.now()));
      }
      await task(i);
    }
  }));
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
    const body = JSON.stringify({ id, object: 'event', type: 'verification.created', created_at: new Date().toISOString(), mode: 'sandbox', test: false, data: { verification: { id: `vs_${i}` } } });
    const ts = Math.floor(Date.now() / 1000);
    const t0 = Date.now();
    await post(`${target.url}/ceiling`, body, { 'webhook-id': id, 'webhook-timestamp': String(ts), 'webhook-signature': signPayload(SECRET, id, ts, body) });
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

/**
 * Through the service: each POST /v1/verifications (pending) writes verification.created to the
 * outbox, delivered to one endpoint. Max rate first, then latency at half that rate.
 */
async function throughService(ctx: BenchContext): Promise<Measurement> {
  receiver ??= await startReceiver();
  const target = receiver;
  const status = await api(ctx, '/v1/webhooks', { url: `${target.url}/service`, events: ['verification.created'] });
  if (status !== 201) throw new Error(`creating the bench endpoint answered ${status}; run with WEBHOOK_ALLOW_PRIVATE_NETWORKS=true`);
  let throttled = 0;
  const create = async () => {
    // A 429 here is the API's rate limiter, not webhook delivery: back off briefly and count it.
    for (let tries = 0; ; tries++) {
      const code = await api(ctx, '/v1/verifications', { sandbox: { outcome: 'pending' } });
      if (code === 201) return;
      if (code !== 429 || tries >= 50) throw new Error(`POST /v1/verifications answered ${code}`);
      throttled++;
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  let since = target.arrivals.size;
  const started = Date.now();
  await pool(COUNT, ctx.settings.connections, create);
  await arrivalsOf(target, COUNT, since);
  const delivered = target.arrivals.size - since;
  const rate = delivered / ((Math.max(...[...target.arrivals.values()].slice(since)) - started) / 1000);
  ctx.log(`  max: ${delivered}/${COUNT} delivered, ${rate.toFixed(0)} deliveries/s (ceiling ${ceilingRate.toFixed(0)}/s, ratio ${(rate / (ceilingRate || 1)).toFixed(2)}; ${throttled} creates throttled with 429)`);

  // Latency at half the maximum rate: enqueue = the 201 of the create (its transaction committed).
  const half = Math.max(1, rate / 2);
  const count = Math.max(50, Math.round(half * ctx.settings.seconds));
  const enqueued: number[] = [];
  since = target.arrivals.size;
  await pool(count, ctx.settings.connections, async () => {
    await create();
    enqueued.push(Date.now());
  }, half);
  const arrivals = await arrivalsOf(target, count, since);
  // Deliveries are not matched to creates one by one; sorted arrival times against sorted enqueue times bound the lag.
  enqueued.sort((a, b) => a - b);
  arrivals.sort((a, b) => a - b);
  const latencies = arrivals.map((at, i) => Math.max(0, at - enqueued[i]!));
  ctx.log(`  at ${half.toFixed(0)}/s: enqueue-to-delivery p50 ${percentile(latencies, 50)} ms, p99 ${percentile(latencies, 99)} ms (target p99 < 1000 ms)`);
  await target.close();
  receiver = undefined;
  return { ...measurement(delivered, delivered / rate, latencies, ctx.settings.connections), requestsPerSecond: Math.round(rate * 100) / 100 };
}

export const webhookScenarios: Scenario[] = [
  { name: 'webhooks-ceiling', label: 'ceiling: sign + POST to a local receiver', run: ceiling },
  { name: 'webhooks', label: 'webhooks: outbox to delivered (deliveries/s)', run: throughService },
];
