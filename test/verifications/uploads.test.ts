import pg from 'pg';
import type { Mode } from '../../src/config.js';
import { Upload } from '../../src/entities/upload.entity.js';
import { Verification } from '../../src/entities/verification.entity.js';
import { scopedFork } from '../../src/orm.js';
import type { BootstrapResult } from '../../src/services/access/index.js';
import { PRESET_STEPS } from '../../src/services/catalog/index.js';
import { Storage } from '../../src/storage/s3.js';
import { heicBytes, jpegBytes, movBytes, mp4Bytes, pdfBytes, pngBytes } from '../support/fixtures.js';
import type { TestServer } from '../support/test-server.js';
import { withTestAccount } from '../support/account.js';
import { createVerification, keyOf } from '../support/factories.js';

let server: TestServer;
let account: BootstrapResult;
let sandbox: string;
let live: string;

// Every verification is made through POST /v1/verifications: well over 100 requests a minute.
withTestAccount((t) => ({ server, account, sandbox, live } = t), { env: { RATE_LIMIT_PER_MINUTE: '100000' } });

const em = (merchantId: string, mode: Mode) => scopedFork(server.runtime.orm, { merchantId, modes: [mode] });

/**
 * A pending verification made through POST /v1/verifications: the preset flow (document,
 * liveness, face_match), or a saved flow accepting only `acceptedDocumentTypes`. No `sandbox`
 * block: the session waits for its uploads like a live one.
 */
async function pendingVerification(
  options: { owner?: BootstrapResult; mode?: Mode; acceptedDocumentTypes?: string[] } = {},
): Promise<string> {
  const owner = options.owner ?? account;
  const mode = options.mode ?? 'sandbox';
  let flow: string | undefined;
  if (options.acceptedDocumentTypes) {
    const created = await server.request('/v1/flows', {
      token: keyOf(owner, mode),
      body: { name: 'Passports only', steps: PRESET_STEPS, accepted_document_types: options.acceptedDocumentTypes },
    });
    expect(created.status).toBe(201);
    flow = created.body.id;
  }
  return (await createVerification(server, owner, mode, flow ? { flow } : {})).id;
}

const presign = (verificationId: string, body: Record<string, unknown>, token = sandbox) =>
  server.request(`/v1/verifications/${verificationId}/uploads`, { token, body });

const complete = (verificationId: string, uploadId: string, token = sandbox) =>
  server.request(`/v1/verifications/${verificationId}/uploads/${uploadId}/complete`, { method: 'POST', token });

/** The client's side of step two: the raw bytes straight to the presigned URL. */
const put = (url: string, body: Buffer, contentType: string) =>
  fetch(url, {
    method: 'PUT',
    body: new Uint8Array(body),
    headers: { 'content-type': contentType, connection: 'close' },
  });

/** Presign, PUT the bytes, complete; returns the complete response. */
async function upload(verificationId: string, body: Record<string, unknown>, bytes: Buffer, token = sandbox) {
  const created = await presign(verificationId, body, token);
  expect(created.status).toBe(201);
  const stored = await put(created.body.upload_url, bytes, body.content_type as string);
  expect(stored.status).toBe(200);
  return { created, completed: await complete(verificationId, created.body.upload_id, token) };
}

async function statusOf(verificationId: string, merchantId = account.merchant.id, mode: Mode = 'sandbox') {
  return (await em(merchantId, mode).findOneOrFail(Verification, { id: verificationId })).status;
}

/** The outbox rows of a verification, oldest first. */
async function events(
  verificationId: string,
): Promise<{ type: string; payload: { verification: { status: string } } }[]> {
  const client = new pg.Client({ connectionString: server.databaseUrl });
  await client.connect();
  try {
    return (
      await client.query('select type, payload from events where verification_id = $1 order by created_at', [
        verificationId,
      ])
    ).rows;
  } finally {
    await client.end();
  }
}

/** The verification.awaiting_service rows: each says the session was processing when it was written. */
async function awaitingService(verificationId: string) {
  const rows = (await events(verificationId)).filter((e) => e.type === 'verification.awaiting_service');
  for (const row of rows) expect(row.payload.verification.status).toBe('processing');
  return rows;
}

describe('POST /v1/verifications/{id}/uploads (Upload URL)', () => {
  it('presigns a PUT straight to storage: upload_id doc_/bio_, key under the account, mode and verification, expires_in 900', async () => {
    const vs = await pendingVerification();
    const doc = await presign(vs, {
      kind: 'document',
      content_type: 'image/jpeg',
      side: 'front',
      document_type: 'passport',
    });
    expect(doc.status).toBe(201);
    expect(doc.body.upload_id).toMatch(/^doc_[0-9A-Za-z]{24}$/);
    expect(doc.body.key).toBe(`${account.merchant.id}/sandbox/${vs}/${doc.body.upload_id}`);
    expect(doc.body.expires_in).toBe(900);
    const url = new URL(doc.body.upload_url);
    expect(url.searchParams.get('X-Amz-Expires')).toBe('900');

    const selfie = await presign(vs, { kind: 'selfie', content_type: 'image/png' });
    expect(selfie.body.upload_id).toMatch(/^bio_/);
    const video = await presign(vs, { kind: 'video', content_type: 'video/mp4' });
    expect(video.body.upload_id).toMatch(/^bio_/);
  });

  it('refuses a content type outside the supported list with 400 UNSUPPORTED_CONTENT_TYPE', async () => {
    const vs = await pendingVerification();
    for (const type of ['image/gif', 'text/plain', 'application/octet-stream']) {
      const res = await presign(vs, { kind: 'document', content_type: type });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({
        type: 'invalid_request_error',
        code: 'UNSUPPORTED_CONTENT_TYPE',
        param: 'content_type',
      });
    }
  });

  it('accepts side only when kind is document', async () => {
    const vs = await pendingVerification();
    const res = await presign(vs, { kind: 'selfie', content_type: 'image/jpeg', side: 'front' });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'PARAMETER_INVALID', param: 'side' });
    const typed = await presign(vs, { kind: 'video', content_type: 'video/mp4', document_type: 'passport' });
    expect(typed.body.error).toMatchObject({ code: 'PARAMETER_INVALID', param: 'document_type' });
  });

  it('validates the body: kind required, video types only for video, unknown fields refused', async () => {
    const vs = await pendingVerification();
    expect((await presign(vs, { content_type: 'image/jpeg' })).body.error).toMatchObject({
      code: 'PARAMETER_MISSING',
      param: 'kind',
    });
    expect((await presign(vs, { kind: 'document' })).body.error).toMatchObject({
      code: 'PARAMETER_MISSING',
      param: 'content_type',
    });
    expect((await presign(vs, { kind: 'passport', content_type: 'image/jpeg' })).body.error).toMatchObject({
      code: 'PARAMETER_INVALID',
      param: 'kind',
    });
    expect((await presign(vs, { kind: 'document', content_type: 'video/mp4' })).body.error).toMatchObject({
      code: 'PARAMETER_INVALID',
      param: 'content_type',
    });
    expect((await presign(vs, { kind: 'selfie', content_type: 'application/pdf' })).body.error).toMatchObject({
      code: 'PARAMETER_INVALID',
      param: 'content_type',
    });
    expect((await presign(vs, { kind: 'video', content_type: 'image/png' })).body.error).toMatchObject({
      code: 'PARAMETER_INVALID',
      param: 'content_type',
    });
    expect(
      (await presign(vs, { kind: 'document', content_type: 'image/jpeg', colour: 'red' })).body.error,
    ).toMatchObject({ code: 'PARAMETER_UNKNOWN', param: 'colour' });
  });

  it('refuses a document type the flow does not accept with 400 DOCUMENT_TYPE_NOT_ACCEPTED', async () => {
    const vs = await pendingVerification({ acceptedDocumentTypes: ['passport'] });
    const refused = await presign(vs, { kind: 'document', content_type: 'image/jpeg', document_type: 'id_card' });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({
      type: 'invalid_request_error',
      code: 'DOCUMENT_TYPE_NOT_ACCEPTED',
      param: 'document_type',
    });
    expect(
      (await presign(vs, { kind: 'document', content_type: 'image/jpeg', document_type: 'passport' })).status,
    ).toBe(201);
    // Empty accepted_document_types: unrestricted.
    const open = await pendingVerification();
    expect(
      (await presign(open, { kind: 'document', content_type: 'image/jpeg', document_type: 'id_card' })).status,
    ).toBe(201);
  });

  it('accepts uploads only while the verification is pending (409 VERIFICATION_NOT_PENDING)', async () => {
    const vs = await pendingVerification();
    await upload(vs, { kind: 'document', content_type: 'image/jpeg' }, jpegBytes());
    await upload(vs, { kind: 'selfie', content_type: 'image/jpeg' }, jpegBytes());
    expect(await statusOf(vs)).not.toBe('pending');
    const res = await presign(vs, { kind: 'document', content_type: 'image/jpeg', side: 'back' });
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ type: 'invalid_request_error', code: 'VERIFICATION_NOT_PENDING' });
  });
});

describe('POST /v1/verifications/{id}/uploads/{uploadId}/complete (Upload status)', () => {
  it('pending -> uploaded once the object is in storage', async () => {
    const vs = await pendingVerification();
    const { created, completed } = await upload(
      vs,
      { kind: 'document', content_type: 'application/pdf', side: 'back', document_type: 'id_card' },
      pdfBytes(),
    );
    expect(completed.status).toBe(200);
    expect(completed.body).toEqual({
      object: 'upload',
      upload_id: created.body.upload_id,
      kind: 'document',
      side: 'back',
      document_type: 'id_card',
      status: 'uploaded',
      created_at: expect.any(String),
    });
    const row = await em(account.merchant.id, 'sandbox').findOneOrFail(Upload, { id: created.body.upload_id });
    expect(Number(row.size)).toBe(pdfBytes().length);
    expect(row.uploadedAt).toBeInstanceOf(Date);
  });

  it('stays pending with 400 UPLOAD_NOT_RECEIVED when complete is called before the object is in storage', async () => {
    const vs = await pendingVerification();
    const created = await presign(vs, { kind: 'selfie', content_type: 'image/jpeg' });
    const early = await complete(vs, created.body.upload_id);
    expect(early.status).toBe(400);
    expect(early.body.error).toMatchObject({ type: 'invalid_request_error', code: 'UPLOAD_NOT_RECEIVED' });
    const row = await em(account.merchant.id, 'sandbox').findOneOrFail(Upload, { id: created.body.upload_id });
    expect(row.status).toBe('pending');
    // The client PUTs afterwards and completes again: now uploaded.
    expect((await put(created.body.upload_url, jpegBytes(), 'image/jpeg')).status).toBe(200);
    expect((await complete(vs, created.body.upload_id)).body.status).toBe('uploaded');
  });

  it('uploaded -> complete again: uploaded; the same record is returned', async () => {
    const vs = await pendingVerification();
    const { created, completed } = await upload(vs, { kind: 'selfie', content_type: 'image/heic' }, heicBytes());
    const again = await complete(vs, created.body.upload_id);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(completed.body);
  });

  it('accepts the supported families: image/jpg is JPEG, HEIC/HEIF, MP4 and QuickTime video', async () => {
    const vs = await pendingVerification();
    expect((await upload(vs, { kind: 'document', content_type: 'image/jpg' }, jpegBytes())).completed.body.status).toBe(
      'uploaded',
    );
    expect(
      (await upload(vs, { kind: 'video', content_type: 'video/quicktime' }, movBytes())).completed.body.status,
    ).toBe('uploaded');
    const other = await pendingVerification();
    expect(
      (await upload(other, { kind: 'selfie', content_type: 'image/heif' }, heicBytes())).completed.body.status,
    ).toBe('uploaded');
    expect((await upload(other, { kind: 'video', content_type: 'video/mp4' }, mp4Bytes())).completed.body.status).toBe(
      'uploaded',
    );
  });

  it('refuses bytes that are not the declared type with 400 UPLOAD_CONTENT_MISMATCH and deletes the object', async () => {
    const vs = await pendingVerification();
    const { created, completed } = await upload(vs, { kind: 'document', content_type: 'image/jpeg' }, pngBytes());
    expect(completed.status).toBe(400);
    expect(completed.body.error).toMatchObject({ type: 'invalid_request_error', code: 'UPLOAD_CONTENT_MISMATCH' });
    expect(await server.runtime.storage.head(created.body.key)).toBeNull();
    const row = await em(account.merchant.id, 'sandbox').findOneOrFail(Upload, { id: created.body.upload_id });
    expect(row.status).toBe('pending');
  });

  it('refuses an image over 20 MiB with 400 UPLOAD_TOO_LARGE and deletes the object', async () => {
    const vs = await pendingVerification();
    const { created, completed } = await upload(
      vs,
      { kind: 'document', content_type: 'image/jpeg' },
      jpegBytes(21 * 1024 * 1024),
    );
    expect(completed.status).toBe(400);
    expect(completed.body.error).toMatchObject({ type: 'invalid_request_error', code: 'UPLOAD_TOO_LARGE' });
    expect(await server.runtime.storage.head(created.body.key)).toBeNull();
  });

  it('storage refuses a tampered presigned URL with 403 and stores nothing', async () => {
    const vs = await pendingVerification();
    const created = await presign(vs, { kind: 'document', content_type: 'image/jpeg' });
    const url = new URL(created.body.upload_url);
    const signature = url.searchParams.get('X-Amz-Signature')!;
    url.searchParams.set('X-Amz-Signature', `${signature[0] === '0' ? '1' : '0'}${signature.slice(1)}`);
    const res = await put(url.toString(), jpegBytes(), 'image/jpeg');
    expect(res.status).toBe(403);
    await res.arrayBuffer();
    expect(await server.runtime.storage.head(created.body.key)).toBeNull();
    expect((await complete(vs, created.body.upload_id)).body.error.code).toBe('UPLOAD_NOT_RECEIVED');
  });

  it('the last upload the flow needs moves pending -> processing and emits verification.awaiting_service', async () => {
    const vs = await pendingVerification();
    await upload(vs, { kind: 'document', content_type: 'image/jpeg', side: 'front' }, jpegBytes());
    expect(await statusOf(vs)).toBe('pending');
    expect(await awaitingService(vs)).toHaveLength(0);
    await upload(vs, { kind: 'selfie', content_type: 'image/jpeg' }, jpegBytes());
    // The checks may already have run past processing; the event proves the move happened.
    expect(await statusOf(vs)).not.toBe('pending');
    expect(await awaitingService(vs)).toHaveLength(1);
  });

  it('simultaneous completes move the verification once (one verification.awaiting_service)', async () => {
    const vs = await pendingVerification();
    const doc = await presign(vs, { kind: 'document', content_type: 'image/jpeg' });
    const selfie = await presign(vs, { kind: 'selfie', content_type: 'image/png' });
    await put(doc.body.upload_url, jpegBytes(), 'image/jpeg');
    await put(selfie.body.upload_url, pngBytes(), 'image/png');
    const results = await Promise.all([
      complete(vs, doc.body.upload_id),
      complete(vs, selfie.body.upload_id),
      complete(vs, selfie.body.upload_id),
      complete(vs, doc.body.upload_id),
    ]);
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(await statusOf(vs)).not.toBe('pending');
    expect(await awaitingService(vs)).toHaveLength(1);
  });
});

describe('uploads: ids, tenancy and environments', () => {
  it('answers 404 for an upload id of the wrong pattern or of another verification', async () => {
    const vs = await pendingVerification();
    const other = await pendingVerification();
    const created = await presign(vs, { kind: 'document', content_type: 'image/jpeg' });
    for (const id of ['upl_123', 'doc_', 'doc_abc-def', 'bio_zzzzzzzzzzzzzzzzzzzzzzzz']) {
      const res = await complete(vs, id);
      expect(res.status).toBe(404);
      expect(res.body.error.type).toBe('not_found_error');
    }
    expect((await complete(other, created.body.upload_id)).status).toBe(404);
    expect((await presign('vs_doesnotexist', { kind: 'document', content_type: 'image/jpeg' })).status).toBe(404);
  });

  it("answers 404 for another account's verification", async () => {
    const otherAccount = await server.bootstrap();
    const theirs = await pendingVerification({ owner: otherAccount });
    const created = await presign(
      theirs,
      { kind: 'document', content_type: 'image/jpeg' },
      otherAccount.keys.sandbox.secret_key,
    );
    expect(created.status).toBe(201);
    const res = await presign(theirs, { kind: 'document', content_type: 'image/jpeg' });
    expect(res.status).toBe(404);
    expect(res.body.error.type).toBe('not_found_error');
    expect((await complete(theirs, created.body.upload_id)).status).toBe(404);
  });

  it('the uploads of a live verification are not visible to a sandbox key', async () => {
    const vs = await pendingVerification({ mode: 'live' });
    const { created, completed } = await upload(
      vs,
      { kind: 'document', content_type: 'image/jpeg' },
      jpegBytes(),
      live,
    );
    expect(completed.status).toBe(200);
    expect(created.body.key).toBe(`${account.merchant.id}/live/${vs}/${created.body.upload_id}`);
    expect((await complete(vs, created.body.upload_id, sandbox)).status).toBe(404);
    expect((await presign(vs, { kind: 'selfie', content_type: 'image/jpeg' }, sandbox)).status).toBe(404);
  });

  it('needs verification:create on a read-write key', async () => {
    const vs = await pendingVerification();
    const readOnly = await server.request('/v1/api-keys', {
      token: sandbox,
      body: { name: 'ro', environment: 'sandbox', access: 'read_only' },
    });
    const res = await presign(vs, { kind: 'document', content_type: 'image/jpeg' }, readOnly.body.secret_key);
    expect(res.status).toBe(403);
    const narrow = await server.request('/v1/api-keys', {
      token: sandbox,
      body: { name: 'reader', environment: 'sandbox', permissions: ['verification:read'] },
    });
    expect(
      (await presign(vs, { kind: 'document', content_type: 'image/jpeg' }, narrow.body.secret_key)).body.error.code,
    ).toBe('INSUFFICIENT_PERMISSIONS');
  });
});

describe('uploads: store unavailable', () => {
  it('answers 503 api_error STORAGE_UNAVAILABLE, not 500, when the store cannot be reached', async () => {
    const vs = await pendingVerification();
    const created = await presign(vs, { kind: 'selfie', content_type: 'image/jpeg' });
    const real = server.runtime.storage;
    const unreachable = new Storage({ ...server.config.s3, endpoint: 'http://127.0.0.1:1' });
    server.runtime.storage = unreachable;
    try {
      const res = await complete(vs, created.body.upload_id);
      expect(res.status).toBe(503);
      expect(res.body.error).toMatchObject({ type: 'api_error', code: 'STORAGE_UNAVAILABLE' });
    } finally {
      server.runtime.storage = real;
      unreachable.destroy();
    }
  });
});
