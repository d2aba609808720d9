// autocannon 9 ships no types and @types/autocannon is not installed; this declares only the
// part of the programmatic API the bench uses (promise form: no callback given).
declare module 'autocannon' {
  /** The raw request autocannon builds; `setupRequest` returns a changed copy. */
  interface RawRequest {
    method?: string;
    path?: string;
    headers: Record<string, string>;
    body?: string | Buffer;
  }

  interface RequestSpec {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string;
    /** Called before every request of this spec; rebuilds the request (Content-Length included). */
    setupRequest?: (request: RawRequest, context: Record<string, unknown>) => RawRequest | null;
  }

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
    requests?: RequestSpec[];
    /** A falsy answer counts the response in `mismatches`. */
    verifyBody?: (body: string) => boolean;
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
  export type { Options, RawRequest, RequestSpec, Result };
}
