import type { TestServer } from './test-server.js';

/** Polls until `check` returns a value (not undefined/false) or the timeout passes. */
export async function waitFor<T>(
  check: () => Promise<T | undefined | false>,
  timeoutMs = 15_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value as T;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Polls GET /v1/verifications/{id} until the session is settled (approved, rejected or manual_review); its body. */
export function waitForVerdict(server: TestServer, id: string, token: string, timeoutMs = 180_000) {
  return waitFor(
    async () => {
      const res = await server.request(`/v1/verifications/${id}`, { token });
      return ['approved', 'rejected', 'manual_review'].includes(res.body.status) ? res.body : undefined;
    },
    timeoutMs,
    'the verdict',
  );
}
