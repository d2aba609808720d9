import type { Mode } from '../../src/config.js';
import type { BootstrapResult } from '../../src/services/access/index.js';
import type { TestServer } from './test-server.js';

/**
 * Test data made the way integrators make it: through the real routes, so a factory can never
 * build a state production cannot reach. Each throws with the answer when the route refuses.
 */

/** The JSON of a created verification (the fields tests read most; the rest as returned). */
export interface CreatedVerification {
  id: string;
  status: string;
  mode: Mode;
  client_token: string | null;
  [field: string]: unknown;
}

/** The secret key of `account` for `mode`. */
export const keyOf = (account: BootstrapResult, mode: Mode = 'sandbox'): string => account.keys[mode].secret_key;

/**
 * POST /v1/verifications with `account`'s key of `mode`. The default body leaves a sandbox
 * session pending (nothing runs until uploads); a live session is pending by nature.
 */
export async function createVerification(
  server: TestServer,
  account: BootstrapResult,
  mode: Mode = 'sandbox',
  body?: Record<string, unknown>,
): Promise<CreatedVerification> {
  const res = await server.request<CreatedVerification>('/v1/verifications', {
    token: keyOf(account, mode),
    body: body ?? (mode === 'sandbox' ? { sandbox: { outcome: 'pending' } } : {}),
  });
  if (res.status !== 201)
    throw new Error(`createVerification: POST /v1/verifications answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body;
}
