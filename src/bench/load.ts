import autocannon, { type Result } from 'autocannon';

export interface LoadTarget {
  url: string;
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  headers?: Record<string, string>;
  body?: string;
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

/**
 * A warm-up run (JIT, connection pools, prepared statements) whose figures are discarded, then
 * the measured run. A fast wrong answer (401, 429, 500) must never pass for throughput, so any
 * non-2xx, socket error or timeout in the measured run fails the bench.
 */
export async function measure(target: LoadTarget, settings: LoadSettings): Promise<Measurement> {
  const base = {
    url: target.url,
    method: target.method ?? 'GET',
    headers: { ...(target.body ? { 'content-type': 'application/json' } : {}), ...target.headers },
    body: target.body,
    connections: settings.connections,
    timeout: 10,
  };
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
    requests: result['2xx'],
    durationSeconds: result.duration,
    connections: settings.connections,
    statusCodes: Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, s]) => [code, s.count])),
  };
}

function assertClean(target: LoadTarget, result: Result, phase: string): void {
  const problems: string[] = [];
  if (result.non2xx) {
    const codes = Object.entries(result.statusCodeStats)
      .filter(([code]) => !code.startsWith('2'))
      .map(([code, s]) => `${code}×${s.count}`)
      .join(', ');
    problems.push(`${result.non2xx} non-2xx responses (${codes})`);
  }
  if (result.errors) problems.push(`${result.errors} socket errors (${result.timeouts} timeouts)`);
  if (result['2xx'] === 0 && !problems.length) problems.push('no responses at all');
  if (problems.length) {
    throw new LoadError(`${target.method ?? 'GET'} ${target.url} ${phase}: ${problems.join('; ')} out of ${result['2xx'] + result.non2xx} responses`);
  }
}

const round = (n: number): number => Math.round(n * 100) / 100;
