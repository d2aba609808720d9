// The document check end to end on a live session: a rendered document uploaded through the
// real two-step upload endpoints, the engine reading it, and the outcome, reason codes and
// evidence read back over HTTP. Flows hold the document check (and the age check that reads
// its date of birth); no face analysis is needed.
import { stopOcr } from '../../src/engine/document/index.js';
import { withTestServer } from '../support/account.js';
import type { TestServer } from '../support/test-server.js';
import { waitFor } from '../support/wait.js';
import { byName, photograph } from '../engine/corpus/corpus.js';
import { applyCondition, type Condition } from '../engine/corpus/conditions.js';
import { HOLDERS, td3 } from '../engine/corpus/documents.js';
import { passportPage } from '../engine/corpus/render.js';

let server: TestServer;
withTestServer((s) => {
  server = s;
});
afterAll(() => stopOcr());

const SLOW = 240_000;

/** A fresh account's live key: each case its own applicant history (no R4 match between cases). */
const liveKey = async () => (await server.bootstrap()).keys.live.secret_key;

/** Presign, PUT the bytes to the store, complete: the client's side of an upload. */
async function upload(token: string, id: string, bytes: Buffer, contentType: string, side: 'front' | 'back' = 'front') {
  const created = await server.request(`/v1/verifications/${id}/uploads`, {
    token,
    body: { kind: 'document', content_type: contentType, side },
  });
  expect(created.status).toBe(201);
  const stored = await fetch(created.body.upload_url, {
    method: 'PUT',
    body: new Uint8Array(bytes),
    headers: { 'content-type': contentType, connection: 'close' },
  });
  expect(stored.status).toBe(200);
  const completed = await server.request(`/v1/verifications/${id}/uploads/${created.body.upload_id}/complete`, {
    method: 'POST',
    token,
  });
  expect(completed.status).toBe(200);
}

/** A live session with only the document check, the case's front uploaded, read back once settled. */
async function verify(caseName: string, condition: Condition) {
  const { front } = await photograph(byName(caseName), condition);
  return verifyImage(front, condition === 'clean' ? 'image/png' : 'image/jpeg', [{ type: 'document' }]);
}

/** A live session with the given checks and one document front uploaded, read back once settled. */
async function verifyImage(front: Buffer, contentType: string, checks: object[]) {
  const token = await liveKey();
  const created = await server.request('/v1/verifications', { token, body: { checks } });
  expect(created.status).toBe(201);
  const id = created.body.id as string;
  await upload(token, id, front, contentType);
  return waitFor(
    async () => {
      const res = await server.request(`/v1/verifications/${id}?include=documents,applicant`, { token });
      return ['approved', 'rejected', 'manual_review', 'expired'].includes(res.body.status) ? res.body : undefined;
    },
    180_000,
    `${id} to settle`,
  );
}

describe('live document check over HTTP', () => {
  it(
    'approves a rendered passport: mrz_valid true on the evidence, identity read off the document',
    async () => {
      const v = await verify('passport_valid', 'photo');
      expect(v).toMatchObject({ status: 'approved', verdict: 'approve' });
      expect(v.checks[0]).toMatchObject({ type: 'document', status: 'completed', verdict: 'approve' });
      expect(v.evidence[0]).toMatchObject({
        kind: 'document',
        side: 'front',
        mrz_valid: true,
        barcode_consistent: null,
        country: 'UTO',
      });
      expect(v.applicant.fields).toMatchObject({
        document_number: 'L898902C3',
        date_of_birth: '1974-08-12',
        last_name: 'ERIKSSON',
        document_type: 'passport',
      });
    },
    SLOW,
  );

  it(
    'rejects a passport whose zone, read clearly, fails its check digits (ID_INVALID, mrz_valid false)',
    async () => {
      const v = await verify('passport_forged_mrz', 'clean');
      expect(v).toMatchObject({ status: 'rejected', verdict: 'reject', reason_codes: ['ID_INVALID'] });
      expect(v.evidence[0].mrz_valid).toBe(false);
    },
    SLOW,
  );

  it(
    'rejects an expired passport with DOCUMENT_EXPIRED',
    async () => {
      const v = await verify('passport_expired', 'clean');
      expect(v).toMatchObject({ status: 'rejected', reason_codes: ['DOCUMENT_EXPIRED'] });
      expect(v.evidence[0].mrz_valid).toBe(true);
    },
    SLOW,
  );

  it(
    'rejects a blurred capture with IMAGE_QUALITY (the applicant may retry)',
    async () => {
      const v = await verify('passport_valid', 'blur_heavy');
      expect(v).toMatchObject({ status: 'rejected', reason_codes: ['IMAGE_QUALITY'] });
      // Nothing verified: no zone (null) or a zone that fails (false), never a valid one.
      expect(v.evidence[0].mrz_valid).not.toBe(true);
    },
    SLOW,
  );

  it(
    'applies the age rules to the date of birth read off the document (a 16-year-old: AGE_RESTRICTED)',
    async () => {
      const now = new Date();
      const birth = `${now.getUTCFullYear() - 16}-01-15`;
      const teen = { ...HOLDERS.anna, number: 'T16A00042', birth };
      const front = await applyCondition(await passportPage(teen, td3(teen)), 'photo');
      const under18 = { ageRules: [{ fromAge: 0, toAge: 17, action: 'reject' }], ageRuleFallback: 'pass' };
      const v = await verifyImage(front, 'image/jpeg', [{ type: 'document' }, { type: 'age', config: under18 }]);
      expect(v.checks.find((c: { type: string }) => c.type === 'document')).toMatchObject({ verdict: 'approve' });
      expect(v.checks.find((c: { type: string }) => c.type === 'age')).toMatchObject({
        verdict: 'reject',
        reason_codes: ['AGE_RESTRICTED'],
      });
      expect(v).toMatchObject({ status: 'rejected', reason_codes: ['AGE_RESTRICTED'] });
      expect(v.applicant.fields.date_of_birth).toBe(birth);
    },
    SLOW,
  );
});
