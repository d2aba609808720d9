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
  const base = options(target, settings);
  if (settings.warmupSeconds > 0) {
    const warm = await autocannon({ ...base, duration: settings.warmupSeconds });
    // A broken target should fail before the long run, with the same clear message.
    assertClean(target, warm, 'warm-up');
  }
  const result = await autocannon({ ...base, duration: settings.seconds });
  assertClean(target, result, 'measured run');
  return {
    requestsPerSecond: round(result.requests.average),
    latencyP50Ms: round(result.latency.p50),
    latencyP99Ms: round(result.latency.p99),
    latencyMaxMs: round(result.latency.max),
    requests: succeeded(target, result),
    durationSeconds: result.duration,
    connections: settings.connections,
    statusCodes: Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, s]) => [code, s.count])),
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
    problems.push(`${count} responses other than ${wanted} (${unexpected.map(([code, s]) => `${code}×${s.count}`).join(', ')})`);
  }
  if (result.mismatches) problems.push(`${result.mismatches} response bodies rejected by verifyBody`);
  if (result.errors) problems.push(`${result.errors} socket errors (${result.timeouts} timeouts)`);
  const total = result['2xx'] + result.non2xx;
  if (succeeded(target, result) === 0 && !problems.length) problems.push('no responses at all');
  if (problems.length) {
    throw new LoadError(`${target.method ?? 'GET'} ${target.url} ${phase}: ${problems.join('; ')} out of ${total} responses`);
  }
}

const round = (n: number): number => Math.round(n * 100) / 100;
