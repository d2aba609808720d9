import type { BootstrapResult } from '../../src/services/access/index.js';
import { createVerification, type CreatedVerification } from './factories.js';
import type { ApiResponse, TestServer } from './test-server.js';

/** Helpers shared by the hosted page's tests (API and browser). */

const inFiveYears = () => `${new Date().getUTCFullYear() + 5}-06-30`;
let counter = 0;

/** The sandbox document the checks "read": a valid passport, so a completed session is approved. */
export const sandboxPassport = () => ({
  type: 'passport',
  number: `P${Date.now() % 1e7}${++counter}`,
  issuing_country: 'GBR',
  date_of_birth: '1985-04-12',
  expiry_date: inFiveYears(),
});

/** The four hosted steps: email, document, selfie (face match) and liveness. */
export const FULL_CHECKS = [{ type: 'email' }, { type: 'document' }, { type: 'face_match' }, { type: 'liveness' }];

/**
 * A sandbox session left pending for the applicant, whose checks approve once submitted
 * (the sandbox document passes; sandbox image checks pass).
 */
export function createHostedSession(
  server: TestServer,
  account: BootstrapResult,
  body: Record<string, unknown> = {},
): Promise<CreatedVerification> {
  return createVerification(server, account, 'sandbox', {
    checks: FULL_CHECKS,
    sandbox: { outcome: 'pending', document: sandboxPassport() },
    ...body,
  });
}

/** The applicant API as the page calls it: the client token as the Bearer token. */
export function applicantApi(server: TestServer, id: string, token: string) {
  const base = `/v1/hosted/verifications/${id}`;
  return {
    session: (): Promise<ApiResponse> => server.request(base, { token }),
    get: (path: string): Promise<ApiResponse> => server.request(`${base}${path}`, { token }),
    post: (path: string, body: unknown = {}): Promise<ApiResponse> => server.request(`${base}${path}`, { token, body }),
  };
}

/** The applicant agrees to the consent text the session shows (the page's first step); answers the body. */
export async function agree(api: ReturnType<typeof applicantApi>, status = 200) {
  const version = (await api.session()).body.consent?.version ?? 'none';
  const res = await api.post('/consent', { decision: 'agree', version });
  if (res.status !== status) throw new Error(`consent answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body;
}

/** WebM: the EBML header with the webm DocType (what a MediaRecorder clip starts with). */
export const webmBytes = (): Buffer =>
  Buffer.concat([
    Buffer.from([
      0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x86, 0x81, 0x01, 0x42, 0xf7, 0x81, 0x01, 0x42, 0xf2, 0x81, 0x04, 0x42, 0xf3,
      0x81, 0x08, 0x42, 0x82, 0x84,
    ]),
    Buffer.from('webm', 'latin1'),
    Buffer.from([0x42, 0x87, 0x81, 0x02, 0x42, 0x85, 0x81, 0x02]),
    Buffer.alloc(400),
  ]);

/** PUTs bytes to a presigned URL as a browser would (same Content-Type as presigned). */
export async function putBytes(url: string, bytes: Buffer, contentType: string): Promise<number> {
  const res = await fetch(url, {
    method: 'PUT',
    body: new Uint8Array(bytes),
    headers: { 'content-type': contentType },
  });
  await res.arrayBuffer();
  return res.status;
}
