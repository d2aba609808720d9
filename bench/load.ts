import autocannon, { type Options, type Result } from 'autocannon';

export interface LoadTarget {
  url: string;
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  headers?: Record<string, string>;
  body?: string;
  /**
   * Called for every request (warm-up included): its headers are added to `headers` and its
   * body replaces `body`. For unique Idempotency-Keys or applicants per request.
   */
  perRequest?: () => { headers?: Record<string, string>; body?: string };
  /**
   * The one status that counts as success, for a scenario whose right answer is a refusal
   * (409 ALREADY_VERIFIED). Every other status fails the run, 2xx included. Default: any 2xx.
   */
  expectStatus?: number;
  /** A response body this rejects fails the run (e.g. a GraphQL 200 carrying `errors`). */
  verifyBody?: (body: string) => boolean;
}

export interface LoadSettings {
  /** Measured seconds; the warm-up before it is separate and not reported. */
  seconds: number;
  warmupSeconds: number;
  connections: number;
}

/** What a scenario reports; kept flat so results-*.json stays easy to diff between runs. */
export interface Measurement {
  requestsPerSecond: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  latencyMaxMs: number;
  requests: number;
  durationSeconds: number;
  connections: number;
  statusCodes: Record<string, number>;
  /** Figures a scenario reports besides the request load (kept in results-*.json). */
  details?: Record<string, number | string>;
  /** Requests/s of each turn, in order, when the target was measured in turns. */
  turnsRequestsPerSecond?: number[];
}

export class LoadError extends Error {}

/** autocannon's options; a `perRequest` target rebuilds every request through setupRequest. */
function options(target: LoadTarget, settings: LoadSettings): Options {
  const base: Options = {
    url: target.url,
    method: target.method ?? 'GET',
    headers: { ...(target.body || target.perRequest ? { 'content-type': 'application/json' } : {}), ...target.headers },
    body: target.body,
    connections: settings.connections,
    timeout: 10,
    verifyBody: target.verifyBody,
  };
  const perRequest = target.perRequest;
  if (perRequest) {
    base.requests = [
      {
        setupRequest: (request) => {
          const extra = perRequest();
          return { ...request, headers: { ...request.headers, ...extra.headers }, body: extra.body ?? request.body };
        },
      },
    ];
  }
  return base;
}

/**
 * A warm-up run (JIT, connection pools, prepared statements) whose figures are discarded, then
 * the measured run. A fast wrong answer (401, 429, 500) must never pass for throughput, so any
 * unexpected status, rejected body, socket error or timeout in the measured run fails the bench.
 */
export async function measure(target: LoadTarget, settings: LoadSettings): Promise<Measurement> {
  const [measurement] = await measureInterleaved([target], settings, 1);
  return measurement!;
}

/**
 * Several targets measured in turns: each is warmed up, then the measured seconds are cut into
 * `rounds` slices run target after target (A B C A B C ...). A ratio between targets measured
 * this way is not skewed by a neighbour's burst of work landing on one of them only, which on a
 * shared machine moved a back-to-back ratio by ±0.1. Requests/s is all slices' requests over
 * their total duration, p50 the request-weighted mean of the slices' p50, p99 and max the
 * worst slice's (conservative). The same checks as `measure` apply to every slice.
 */
export async function measureInterleaved(
  targets: LoadTarget[],
  settings: LoadSettings,
  rounds: number,
): Promise<Measurement[]> {
  const bases = targets.map((target) => options(target, settings));
  if (settings.warmupSeconds > 0) {
    for (const [i, target] of targets.entries()) {
      // A broken target should fail before the long run, with the same clear message.
      assertClean(target, await autocannon({ ...bases[i]!, duration: settings.warmupSeconds }), 'warm-up');
    }
  }
  const slices: Result[][] = targets.map(() => []);
  const sliceSeconds = settings.seconds / rounds;
  for (let round = 0; round < rounds; round++) {
    for (const [i, target] of targets.entries()) {
      const result = await autocannon({ ...bases[i]!, duration: sliceSeconds });
      assertClean(target, result, 'measured run');
      slices[i]!.push(result);
    }
  }
  return targets.map((target, i) => combine(target, slices[i]!, settings));
}

function combine(target: LoadTarget, results: Result[], settings: LoadSettings): Measurement {
  const total = results.reduce((sum, r) => sum + r.requests.total, 0);
  const duration = results.reduce((sum, r) => sum + r.duration, 0);
  const statusCodes: Record<string, number> = {};
  for (const r of results) {
    for (const [code, s] of Object.entries(r.statusCodeStats)) statusCodes[code] = (statusCodes[code] ?? 0) + s.count;
  }
  return {
    requestsPerSecond: round(results.length === 1 ? results[0]!.requests.average : total / duration),
    latencyP50Ms: round(results.reduce((sum, r) => sum + r.latency.p50 * r.requests.total, 0) / Math.max(total, 1)),
    latencyP99Ms: round(Math.max(...results.map((r) => r.latency.p99))),
    latencyMaxMs: round(Math.max(...results.map((r) => r.latency.max))),
    requests: results.reduce((sum, r) => sum + succeeded(target, r), 0),
    durationSeconds: round(duration),
    connections: settings.connections,
    statusCodes,
    ...(results.length > 1 ? { turnsRequestsPerSecond: results.map((r) => round(r.requests.total / r.duration)) } : {}),
  };
}

const isExpected = (target: LoadTarget, code: string): boolean =>
  target.expectStatus === undefined ? code.startsWith('2') : code === String(target.expectStatus);

const succeeded = (target: LoadTarget, result: Result): number =>
  Object.entries(result.statusCodeStats).reduce((sum, [code, s]) => sum + (isExpected(target, code) ? s.count : 0), 0);

function assertClean(target: LoadTarget, result: Result, phase: string): void {
  const problems: string[] = [];
  const wanted = target.expectStatus === undefined ? '2xx' : String(target.expectStatus);
  const unexpected = Object.entries(result.statusCodeStats).filter(([code]) => !isExpected(target, code));
  if (unexpected.length) {
    const count = unexpected.reduce((sum, [, s]) => sum + s.count, 0);
    problems.push(
      `${count} responses other than ${wanted} (${unexpected.map(([code, s]) => `${code}×${s.count}`).join(', ')})`,
    );
  }
  if (result.mismatches) problems.push(`${result.mismatches} response bodies rejected by verifyBody`);
  if (result.errors) problems.push(`${result.errors} socket errors (${result.timeouts} timeouts)`);
  const total = result['2xx'] + result.non2xx;
  if (succeeded(target, result) === 0 && !problems.length) problems.push('no responses at all');
  if (problems.length) {
    throw new LoadError(
      `${target.method ?? 'GET'} ${target.url} ${phase}: ${problems.join('; ')} out of ${total} responses`,
    );
  }
}

const round = (n: number): number => Math.round(n * 100) / 100;
