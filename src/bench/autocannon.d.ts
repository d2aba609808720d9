// autocannon 9 ships no types and @types/autocannon is not installed; this declares only the
// part of the programmatic API the bench uses (promise form: no callback given).
declare module 'autocannon' {
  interface Options {
    url: string;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    connections?: number;
    pipelining?: number;
    duration?: number;
    timeout?: number;
    bailout?: number;
  }

  interface Histogram {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    total: number;
    p50: number;
    p90: number;
    p99: number;
    p99_9?: number;
  }

  interface Result {
    url: string;
    connections: number;
    duration: number;
    latency: Histogram;
    requests: Histogram;
    throughput: Histogram;
    errors: number;
    timeouts: number;
    mismatches: number;
    resets: number;
    non2xx: number;
    '2xx': number;
    statusCodeStats: Record<string, { count: number }>;
  }

  function autocannon(options: Options): Promise<Result>;
  export default autocannon;
  export type { Options, Result };
}
