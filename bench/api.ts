import type { LoadTarget } from './load.js';

/** One-off HTTP calls the scenarios make while preparing (never timed). */

export interface ApiResponse {
  status: number;
  body: any;
}

/** `token`: an API key or a member session token, sent as a bearer token. */
export async function call(
  url: string,
  token: string,
  method: 'GET' | 'POST',
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<ApiResponse> {
  const res = await fetch(url, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      connection: 'close',
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* not JSON: keep the text for the error message */
  }
  return { status: res.status, body: parsed };
}

/** Throws with the answer when `res` is not `status`. */
export function expectStatus(res: ApiResponse, status: number, what: string): ApiResponse {
  if (res.status !== status)
    throw new Error(`${what} answered ${res.status} (expected ${status}): ${JSON.stringify(res.body).slice(0, 500)}`);
  return res;
}

/** Runs `task` for 0..count-1 with at most `concurrency` in flight; results in index order. */
export async function inParallel<T>(count: number, concurrency: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      while (next < count) {
        const i = next++;
        out[i] = await task(i);
      }
    }),
  );
  return out;
}

/**
 * A member's GraphQL query as a load target. GraphQL reports failures in a 200, so a body
 * carrying `errors` fails the run: a page of errors must not pass for throughput.
 */
export const graphqlTarget = (
  serviceUrl: string,
  memberToken: string,
  query: string,
  variables?: Record<string, unknown>,
): LoadTarget => ({
  url: `${serviceUrl}/graphql`,
  method: 'POST',
  headers: { authorization: `Bearer ${memberToken}` },
  body: JSON.stringify(variables ? { query, variables } : { query }),
  verifyBody: (body) => !body.includes('"errors"'),
});
