// Issue 28's done-when case over HTTP with two different real photos: one photo of a real
// person (the real photos' tuning set, test/engine/faces/real) printed into a passport page
// that is photographed on a desk, and another photo of the same person as the selfie, uploaded
// through the upload endpoints of a live session; then another person's selfie on the same
// passport. Document and face_match are decided by the engine (real DB, store, pool).
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { jest } from '@jest/globals';
import sharp from 'sharp';
import { stopOcr } from '../../src/engine/document/index.js';
import { withPortrait } from '../../eval/faces/corpus.js';
import { DOCUMENT_MATCH_THRESHOLD } from '../../src/engine/face/decide.js';
import { REAL_DIR } from '../../eval/faces/real.js';
import { withTestServer } from '../support/account.js';
import type { TestServer } from '../support/test-server.js';
import { waitFor } from '../support/wait.js';
import { applyCondition } from '../engine/corpus/conditions.js';
import { HOLDERS, td3 } from '../engine/corpus/documents.js';
import { passportPage } from '../engine/corpus/render.js';

jest.setTimeout(240_000);

let server: TestServer;
withTestServer(
  async (s) => {
    server = s;
  },
  { env: { RATE_LIMIT_PER_MINUTE: '100000' } },
);
afterAll(() => stopOcr());

const photo = (file: string) => readFile(path.join(REAL_DIR, file));

/** The photo's largest face cropped as a passport portrait (head and shoulders), as the issuer would print it. */
async function portraitOf(file: string): Promise<Buffer> {
  const bytes = await photo(file);
  const { faces } = await server.runtime.engine.run('face.read', { image: bytes });
  expect(faces.length).toBeGreaterThan(0);
  const meta = await sharp(bytes).metadata();
  const [x, y, w, h] = faces[0]!.box;
  const width = Math.round(Math.max(w, h) * 1.7);
  const height = Math.round(width * 1.28);
  const left = Math.max(0, Math.round(x + w / 2 - width / 2));
  const top = Math.max(0, Math.round(y + h / 2 - height * 0.45));
  return sharp(bytes)
    .extract({ left, top, width: Math.min(width, meta.width! - left), height: Math.min(height, meta.height! - top) })
    .jpeg({ quality: 92 })
    .toBuffer();
}

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
  const done = await server.request(`/v1/verifications/${id}/uploads/${created.body.upload_id}/complete`, {
    method: 'POST',
    token,
  });
  expect(done.status).toBe(200);
}

/** A fresh account's live session of document and face_match at the step's defaults; resolves settled. */
async function session(document: Buffer, selfie: Buffer) {
  const token = (await server.bootstrap()).keys.live.secret_key;
  const created = await server.request('/v1/verifications', {
    token,
    body: { checks: [{ type: 'document' }, { type: 'face_match' }] },
  });
  expect(created.status).toBe(201);
  const id = created.body.id as string;
  await upload(token, id, { kind: 'document', side: 'front' }, document);
  await upload(token, id, { kind: 'selfie' }, selfie);
  return waitFor(
    async () => {
      const res = await server.request(`/v1/verifications/${id}`, { token });
      return ['approved', 'rejected', 'manual_review', 'expired'].includes(res.body.status) ? res.body : undefined;
    },
    200_000,
    `${id} to settle`,
  );
}

const checkOf = (v: any, type: string) => v.checks.find((c: { type: string }) => c.type === type);

describe('face_match on a live session with two different real photos (tuning-set people)', () => {
  let passport: Buffer;
  beforeAll(async () => {
    const holder = HOLDERS.anna;
    passport = await applyCondition(
      await withPortrait(await passportPage(holder, td3(holder)), await portraitOf('fr-obama/1.jpg')),
      'photo',
    );
  });

  it('the passport portrait and a selfie from another photo of the same person: approved at the defaults', async () => {
    const v = await session(passport, await photo('fr-obama/3.jpg'));
    expect(checkOf(v, 'document')).toMatchObject({ status: 'completed', verdict: 'approve' });
    expect(checkOf(v, 'face_match')).toMatchObject({ status: 'completed', verdict: 'approve', reason_codes: [] });
    expect(checkOf(v, 'face_match').score).toBeGreaterThanOrEqual(DOCUMENT_MATCH_THRESHOLD);
    expect(v).toMatchObject({ status: 'approved', verdict: 'approve' });
  });

  it('the same passport with another person’s selfie: SELFIE_MISMATCH, rejected at the defaults', async () => {
    const v = await session(passport, await photo('fr-biden/1.jpg'));
    expect(checkOf(v, 'document')).toMatchObject({ verdict: 'approve' });
    expect(checkOf(v, 'face_match')).toMatchObject({
      status: 'completed',
      verdict: 'reject',
      reason_codes: ['SELFIE_MISMATCH'],
    });
    expect(v.status).toBe('rejected');
    expect(v.reason_codes).toContain('SELFIE_MISMATCH');
  });
});
