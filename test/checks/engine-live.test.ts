// Live sessions decided by the face engine over HTTP: uploads through presigned URLs, the
// run-checks job, the verdict read back. Real photos (test/engine/faces), real pool.
import { jest } from '@jest/globals';
import type { BootstrapResult } from '../../src/services/access/index.js';
import { documentImage, loadIdentities, variant, type FaceIdentity } from '../../eval/faces/corpus.js';
import { withTestAccount } from '../support/account.js';
import { createVerification } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { waitFor } from '../support/wait.js';

jest.setTimeout(240_000);

let server: TestServer;
let account: BootstrapResult;
let live: string;
let people: FaceIdentity[];

withTestAccount(
  async (t) => {
    ({ server, account, live } = t);
    people = await loadIdentities({
      files: ['sample1.jpg', 'sample2.jpg'],
      read: (image) => server.runtime.engine.run('face.read', { image }),
    });
  },
  { env: { RATE_LIMIT_PER_MINUTE: '100000' } },
);

const put = (url: string, body: Buffer, contentType: string) =>
  fetch(url, {
    method: 'PUT',
    body: new Uint8Array(body),
    headers: { 'content-type': contentType, connection: 'close' },
  });

/** Presign, PUT and complete one upload (the integrator's two steps). */
async function upload(
  s: TestServer,
  token: string,
  id: string,
  body: Record<string, unknown>,
  bytes: Buffer,
): Promise<void> {
  const created = await s.request(`/v1/verifications/${id}/uploads`, {
    token,
    body: { content_type: 'image/jpeg', ...body },
  });
  expect(created.status).toBe(201);
  expect((await put(created.body.upload_url, bytes, 'image/jpeg')).status).toBe(200);
  const done = await s.request(`/v1/verifications/${id}/uploads/${created.body.upload_id}/complete`, {
    method: 'POST',
    token,
  });
  expect(done.status).toBe(200);
}

/** A live session of `checks` with a document front and a selfie; resolves once uploaded. */
async function liveSession(
  s: TestServer,
  owner: BootstrapResult,
  checks: unknown[],
  document: Buffer,
  selfie: Buffer,
): Promise<string> {
  const token = owner.keys.live.secret_key;
  const v = await createVerification(s, owner, 'live', { checks });
  await upload(s, token, v.id, { kind: 'document', side: 'front' }, document);
  await upload(s, token, v.id, { kind: 'selfie' }, selfie);
  return v.id;
}

const settled = (s: TestServer, token: string, id: string) =>
  waitFor(
    async () => {
      const res = await s.request(`/v1/verifications/${id}`, { token });
      return ['approved', 'rejected', 'manual_review', 'expired'].includes(res.body.status) ? res.body : undefined;
    },
    180_000,
    `${id} to settle`,
  );

const checkOf = (v: any, type: string) => v.checks.find((c: { type: string }) => c.type === type);

describe('face_match on a live session', () => {
  it("a selfie of the document's holder approves face_match, and the session with it", async () => {
    const id = await liveSession(
      server,
      account,
      [{ type: 'face_match' }],
      await documentImage(people[0].portrait),
      await variant(people[0].portrait, 'tight_crop'),
    );
    const v = await settled(server, live, id);
    expect(checkOf(v, 'face_match')).toMatchObject({ status: 'completed', verdict: 'approve', reason_codes: [] });
    expect(checkOf(v, 'face_match').score).toBeGreaterThanOrEqual(0.7);
    expect(v).toMatchObject({ status: 'approved', verdict: 'approve', change_reason: 'engine' });
  });

  it("another person's selfie is SELFIE_MISMATCH: rejected (retryable) below the step's band, review inside it", async () => {
    const document = await documentImage(people[1].portrait);
    const selfie = await variant(people[3].portrait, 'tight_crop');
    const analysis = await server.runtime.engine.run('face.match', { document, selfie });
    // The step's own threshold above this pair's similarity, no review band: a rejection.
    const strict = await liveSession(
      server,
      account,
      [{ type: 'face_match', threshold: Math.min(1, analysis.similarity! + 0.05), sensitivity: 0 }],
      document,
      selfie,
    );
    const rejected = await settled(server, live, strict);
    expect(checkOf(rejected, 'face_match')).toMatchObject({ verdict: 'reject', reason_codes: ['SELFIE_MISMATCH'] });
    expect(rejected).toMatchObject({ status: 'rejected', reason_codes: ['SELFIE_MISMATCH'] });
    const events = await server.sql(
      "select payload from events where verification_id = $1 and type = 'verification.completed'",
      [strict],
    );
    expect(events[0].payload.verification.decline_type).toBe('retryable');
    // The same pair with the whole range as review band goes to a human instead.
    const lenient = await liveSession(
      server,
      account,
      [{ type: 'face_match', threshold: Math.min(1, analysis.similarity! + 0.05), sensitivity: 1 }],
      document,
      selfie,
    );
    const reviewed = await settled(server, live, lenient);
    expect(checkOf(reviewed, 'face_match')).toMatchObject({ verdict: 'review', reason_codes: ['SELFIE_MISMATCH'] });
    expect(reviewed.status).toBe('manual_review');
  });

  it('liveness on a one-face selfie completes with a score, and the age check without a read date of birth is review only', async () => {
    const id = await liveSession(
      server,
      account,
      [
        { type: 'liveness', threshold: 0 },
        { type: 'age', config: { ageRules: [{ fromAge: 0, toAge: 17, action: 'reject' }] } },
      ],
      await documentImage(people[0].portrait),
      people[0].portrait,
    );
    const v = await settled(server, live, id);
    expect(checkOf(v, 'liveness')).toMatchObject({ status: 'completed', verdict: 'approve' });
    expect(checkOf(v, 'age')).toMatchObject({ status: 'completed', verdict: 'review' });
    expect(checkOf(v, 'age').reason_codes).toContain('AGE_ESTIMATED_FROM_FACE');
    expect(v.status).toBe('manual_review');
  });

  it('analysis runs outside any transaction: the verification row can be locked (FOR UPDATE NOWAIT) while the engine works', async () => {
    const id = await liveSession(
      server,
      account,
      [{ type: 'face_match' }, { type: 'liveness', required: false }],
      await documentImage(people[2].portrait),
      await variant(people[2].portrait, 'bright'),
    );
    let duringAnalysis = 0;
    let settledStatus = '';
    while (!settledStatus) {
      const busy = server.runtime.engine.running > 0;
      // 55P03 (lock_not_available) while the pool was busy throughout means run-checks held the
      // row lock during analysis; between analyses the short settling transaction may hold it.
      const rows = await server
        .sql('select status from verifications where id = $1 for update nowait', [id])
        .catch((error) => {
          if (error.code !== '55P03' || (busy && server.runtime.engine.running > 0)) throw error;
          return [{ status: 'processing' }];
        });
      if (busy && server.runtime.engine.running > 0) duringAnalysis += 1;
      if (['approved', 'rejected', 'manual_review'].includes(rows[0].status)) settledStatus = rows[0].status;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(duringAnalysis).toBeGreaterThan(0);
    expect(settledStatus).not.toBe('processing');
  });
});

describe('an analysis that fails', () => {
  let slow: TestServer;
  let owner: BootstrapResult;
  beforeAll(async () => {
    slow = await startTestServer({ env: { ENGINE_TIMEOUT_MS: '1', RATE_LIMIT_PER_MINUTE: '100000' } });
    owner = await slow.bootstrap();
  });
  afterAll(() => slow?.close());

  it('a timed-out analysis errors the check with CHECK_UNAVAILABLE, and the session still settles (review)', async () => {
    const id = await liveSession(
      slow,
      owner,
      [{ type: 'face_match' }, { type: 'liveness' }],
      await documentImage(people[0].portrait),
      people[0].portrait,
    );
    const v = await settled(slow, owner.keys.live.secret_key, id);
    for (const type of ['face_match', 'liveness']) {
      expect(checkOf(v, type)).toMatchObject({
        status: 'errored',
        verdict: 'review',
        reason_codes: ['CHECK_UNAVAILABLE'],
      });
    }
    expect(v).toMatchObject({ status: 'manual_review', verdict: 'review' });
    expect(v.reason_codes).toContain('CHECK_UNAVAILABLE');
  });
});
