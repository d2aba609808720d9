// The end-to-end case over HTTP: a passport-style page (the document corpus's renderer,
// real TD3 zone) carrying a real face (test/engine/faces), and a selfie, uploaded through the
// upload endpoints; document, face_match and liveness all decided by the engine. Each case
// uses a fresh account so repeat control (R4/R7) never links cases.
import { jest } from '@jest/globals';
import { stopOcr } from '../../src/engine/document/index.js';
import { loadIdentities, variant, withPortrait, type FaceIdentity } from '../../eval/faces/corpus.js';
import { FACE_MATCH_THRESHOLD } from '../../src/engine/face/decide.js';
import { withTestServer } from '../support/account.js';
import type { TestServer } from '../support/test-server.js';
import { waitFor } from '../support/wait.js';
import { applyCondition } from '../engine/corpus/conditions.js';
import { HOLDERS, td3, type Holder } from '../engine/corpus/documents.js';
import { passportPage } from '../engine/corpus/render.js';

jest.setTimeout(240_000);

let server: TestServer;
let people: FaceIdentity[];
withTestServer(
  async (s) => {
    server = s;
    people = await loadIdentities({
      files: ['sample1.jpg'],
      read: (image) => s.runtime.engine.run('face.read', { image }),
    });
  },
  { env: { RATE_LIMIT_PER_MINUTE: '100000' } },
);
afterAll(() => stopOcr());

/** The holder's passport with `face` printed in its portrait box, photographed on a desk. */
const passport = async (holder: Holder, face: FaceIdentity) =>
  applyCondition(await withPortrait(await passportPage(holder, td3(holder)), face.portrait), 'photo');

async function upload(token: string, id: string, body: Record<string, unknown>, bytes: Buffer): Promise<void> {
  const created = await server.request(`/v1/verifications/${id}/uploads`, {
    token,
    body: { content_type: 'image/jpeg', ...body },
  });
  expect(created.status).toBe(201);
  const stored = await fetch(created.body.upload_url, {
    method: 'PUT',
    body: new Uint8Array(bytes),
    headers: { 'content-type': 'image/jpeg', connection: 'close' },
  });
  expect(stored.status).toBe(200);
  expect(
    (
      await server.request(`/v1/verifications/${id}/uploads/${created.body.upload_id}/complete`, {
        method: 'POST',
        token,
      })
    ).status,
  ).toBe(200);
}

/** A fresh account's live session of document, face_match and liveness; resolves with the settled verification. */
async function session(document: Buffer, selfie: Buffer, faceMatch: Record<string, unknown> = {}) {
  const token = (await server.bootstrap()).keys.live.secret_key;
  const created = await server.request('/v1/verifications', {
    token,
    body: { checks: [{ type: 'document' }, { type: 'face_match', ...faceMatch }, { type: 'liveness' }] },
  });
  expect(created.status).toBe(201);
  const id = created.body.id as string;
  await upload(token, id, { kind: 'document', side: 'front' }, document);
  await upload(token, id, { kind: 'selfie' }, selfie);
  return waitFor(
    async () => {
      const res = await server.request(`/v1/verifications/${id}?include=documents,applicant`, { token });
      return ['approved', 'rejected', 'manual_review', 'expired'].includes(res.body.status) ? res.body : undefined;
    },
    200_000,
    `${id} to settle`,
  );
}

const checkOf = (v: any, type: string) => v.checks.find((c: { type: string }) => c.type === type);
let firstId = '';

describe('a live session decided end to end by the engine', () => {
  it('a passport with the holder’s face and a matching selfie is approved, mrz_valid true, every check by analysis', async () => {
    const v = await session(await passport(HOLDERS.anna, people[0]!), await variant(people[0]!.portrait, 'tight_crop'));
    firstId = v.id;
    expect(v).toMatchObject({ status: 'approved', verdict: 'approve', change_reason: 'engine' });
    for (const type of ['document', 'face_match', 'liveness'])
      expect(checkOf(v, type)).toMatchObject({ status: 'completed', verdict: 'approve', reason_codes: [] });
    expect(checkOf(v, 'face_match').score).toBeGreaterThanOrEqual(FACE_MATCH_THRESHOLD);
    expect(v.evidence.find((e: { kind: string }) => e.kind === 'document')).toMatchObject({
      side: 'front',
      mrz_valid: true,
    });
    expect(v.applicant.fields).toMatchObject({ document_number: 'L898902C3', last_name: 'ERIKSSON' });
  });

  it('the same passport with someone else’s selfie is SELFIE_MISMATCH (document still approved)', async () => {
    const v = await session(
      await passport(HOLDERS.anna, people[0]!),
      await variant(people[2]!.portrait, 'tight_crop'),
      { sensitivity: 0 },
    );
    expect(checkOf(v, 'document')).toMatchObject({ verdict: 'approve' });
    expect(checkOf(v, 'face_match')).toMatchObject({
      status: 'completed',
      verdict: 'reject',
      reason_codes: ['SELFIE_MISMATCH'],
    });
    expect(checkOf(v, 'face_match').score).toBeLessThan(FACE_MATCH_THRESHOLD);
    expect(v).toMatchObject({ status: 'rejected' });
    expect(v.reason_codes).toContain('SELFIE_MISMATCH');
  });

  it('the same face on another person’s passport in another account joins a face network: FRAUD_NETWORK, review, no other account’s data', async () => {
    const v = await session(await passport(HOLDERS.jan, people[0]!), await variant(people[0]!.portrait, 'tight_crop'));
    expect(checkOf(v, 'document')).toMatchObject({ verdict: 'approve' });
    const faceMatch = checkOf(v, 'face_match');
    expect(faceMatch).toMatchObject({ status: 'completed', verdict: 'review' });
    expect(faceMatch.reason_codes).toContain('FRAUD_NETWORK');
    expect(faceMatch.findings).toEqual([
      expect.objectContaining({ code: 'FRAUD_NETWORK', kind: 'face', scope: 'cross_account' }),
    ]);
    // Ids and counts only: nothing names the first account, its verification or its applicant.
    const text = JSON.stringify(faceMatch.findings);
    expect(firstId).not.toBe('');
    for (const secret of ['ERIKSSON', 'L898902C3', firstId]) expect(text).not.toContain(secret);
    expect(v.status).toBe('manual_review');
  });
});
