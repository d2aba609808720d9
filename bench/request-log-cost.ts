import { measureInterleaved, type LoadTarget, type Measurement } from './load.js';
import type { BenchContext, Comparison, Scenario } from './scenarios.js';
import { pendingCreate } from './verifications.js';

/**
 * What the request log costs the request path (issue 17: authenticated GET and create may lose
 * at most 10%). Two more service processes attach to the bench's database and store, neither
 * working jobs (the first service keeps doing that for all three, so both variants share the
 * same background load); they differ only in REQUEST_LOG. Each pair is measured in turns
 * (on, off, off, on, ...) so a burst elsewhere on the machine lands on both alike.
 */

/** Rounds of A B B A: at least 4, more on a longer run so each turn stays about 6 s. */
const roundsFor = (seconds: number): number => Math.max(4, Math.round(seconds / 12));

interface Variants {
  on: string;
  off: string;
}

let variants: Promise<Variants> | undefined;
const started = (ctx: BenchContext): Promise<Variants> =>
  (variants ??= (async () => ({
    on: await ctx.startService('service-request-log-on', { REQUEST_LOG: 'true', RUN_JOBS: 'false' }),
    off: await ctx.startService('service-request-log-off', { REQUEST_LOG: 'false', RUN_JOBS: 'false' }),
  }))());

const authenticatedGet = (ctx: BenchContext, url: string): LoadTarget => ({
  url: `${url}/v1/merchant`,
  headers: { authorization: `Bearer ${ctx.sandboxKey}` },
});
const create = (ctx: BenchContext, url: string): LoadTarget => ({
  url: `${url}/v1/verifications`,
  method: 'POST',
  headers: { authorization: `Bearer ${ctx.sandboxKey}` },
  perRequest: pendingCreate,
});

/** Two measurements of one target as one: requests over time, the worse tail. */
function merged(a: Measurement, b: Measurement): Measurement {
  const requests = a.requests + b.requests;
  const durationSeconds = a.durationSeconds + b.durationSeconds;
  const statusCodes = { ...a.statusCodes };
  for (const [code, n] of Object.entries(b.statusCodes)) statusCodes[code] = (statusCodes[code] ?? 0) + n;
  return {
    requestsPerSecond: requests / durationSeconds,
    latencyP50Ms: (a.latencyP50Ms * a.requests + b.latencyP50Ms * b.requests) / Math.max(1, requests),
    latencyP99Ms: Math.max(a.latencyP99Ms, b.latencyP99Ms),
    latencyMaxMs: Math.max(a.latencyMaxMs, b.latencyMaxMs),
    requests,
    durationSeconds,
    connections: a.connections,
    statusCodes,
  };
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((x, y) => x - y);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/**
 * The on/off ratio of each round (its two on turns over its two off turns, all of one length):
 * a burst elsewhere on the machine shows as one outlying round, where the whole-run ratio
 * only moves. Reported beside the whole-run figure, which is what the target is checked on.
 */
function roundRatios(on: Measurement[], off: Measurement[]): number[] {
  const [onA, onB] = on.map((m) => m.turnsRequestsPerSecond ?? []);
  const [offA, offB] = off.map((m) => m.turnsRequestsPerSecond ?? []);
  return onA!.map((_, i) => Math.round(((onA![i]! + onB![i]!) / (offA![i]! + offB![i]!)) * 1000) / 1000);
}

const pairs = new Map<string, Promise<Measurement[]>>();
/** Both variants of one request, measured once in turns; each scenario reads its half. */
function pair(ctx: BenchContext, kind: 'get' | 'create'): Promise<Measurement[]> {
  let measured = pairs.get(kind);
  if (!measured) {
    measured = started(ctx).then(async ({ on, off }) => {
      const target = kind === 'get' ? authenticatedGet : create;
      // A B B A in every round: in plain A B turns the first target of a round measured about
      // 20% slower than the second with both processes configured alike (an A/A run), so each
      // variant takes both positions and its halves are merged.
      const half = { ...ctx.settings, seconds: ctx.settings.seconds / 2 };
      const [onFirst, offSecond, offFirst, onSecond] = await measureInterleaved(
        [target(ctx, on), target(ctx, off), target(ctx, off), target(ctx, on)],
        half,
        roundsFor(ctx.settings.seconds),
      );
      const ratios = roundRatios([onFirst!, onSecond!], [offFirst!, offSecond!]);
      const details = { roundRatios: ratios.join(' '), roundRatioMedian: Math.round(median(ratios) * 1000) / 1000 };
      ctx.log(`  ${kind} on/off by round: ${details.roundRatios} (median ${details.roundRatioMedian})`);
      return [{ ...merged(onFirst!, onSecond!), details }, merged(offFirst!, offSecond!)];
    });
    pairs.set(kind, measured);
  }
  return measured;
}

export const requestLogScenarios: Scenario[] = [
  {
    name: 'request-log-get-on',
    label: 'GET /v1/merchant, request log on (no jobs in this process)',
    run: async (ctx) => (await pair(ctx, 'get'))[0]!,
  },
  {
    name: 'request-log-get-off',
    label: 'GET /v1/merchant, request log off (REQUEST_LOG=false)',
    run: async (ctx) => (await pair(ctx, 'get'))[1]!,
  },
  {
    name: 'request-log-create-on',
    label: 'POST /v1/verifications, request log on (no jobs in this process)',
    run: async (ctx) => (await pair(ctx, 'create'))[0]!,
  },
  {
    name: 'request-log-create-off',
    label: 'POST /v1/verifications, request log off (REQUEST_LOG=false)',
    run: async (ctx) => (await pair(ctx, 'create'))[1]!,
  },
];

export const requestLogComparisons: Comparison[] = [
  {
    name: 'request log cost: GET on/off',
    numerator: 'request-log-get-on',
    denominator: 'request-log-get-off',
    target: 0.9,
  },
  {
    name: 'request log cost: create on/off',
    numerator: 'request-log-create-on',
    denominator: 'request-log-create-off',
    target: 0.9,
  },
];
