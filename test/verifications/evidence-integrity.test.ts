// Issue 27, item 1: evidence is immutable once complete accepts it. A presigned PUT URL stays
// writable for 15 minutes, so what the engine analyses and what reviewers see must be the bytes
// complete checked, whatever is written to the upload URL later.
import { createHash } from 'node:crypto';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { loadCheckImages } from '../../src/services/checks/index.js';
import { scopedFork } from '../../src/orm.js';
import type { BootstrapResult } from '../../src/services/access/index.js';
import { EvidenceIntegrityError, ObjectTooLargeError, SEALED_PREFIX } from '../../src/storage/s3.js';
import { withTestAccount } from '../support/account.js';
import { jpegBytes } from '../support/fixtures.js';
import type { TestServer } from '../support/test-server.js';
import { waitFor } from '../support/wait.js';

let server: TestServer;
let account: BootstrapResult;
let sandbox: string;

withTestAccount((t) => ({ server, account, sandbox } = t), { env: { RATE_LIMIT_PER_MINUTE: '100000' } });

const sha256 = (bytes: Buffer | Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const MiB = 1024 * 1024;

const put = (url: string, body: Buffer, contentType = 'image/jpeg') =>
  fetch(url, {
    method: 'PUT',
    body: new Uint8Array(body),
    headers: { 'content-type': contentType, connection: 'close' },
  });

/** A sandbox session whose one document check runs when its document is completed. */
async function documentSession(): Promise<string> {
  const res = await server.request('/v1/verifications', { token: sandbox, body: { checks: [{ type: 'document' }] } });
  expect(res.status).toBe(201);
  return res.body.id;
}

/** The evidence a key sees with include=documents, downloaded through its URL. */
async function servedEvidence(vs: string): Promise<Buffer[]> {
  const res = await server.request(`/v1/verifications/${vs}?include=documents`, { token: sandbox });
  expect(res.status).toBe(200);
  const evidence = (res.body.evidence ?? res.body.documents ?? []) as { url: string }[];
  expect(evidence.length).toBeGreaterThan(0);
  return Promise.all(
    evidence.map(async (e) =>
      Buffer.from(await (await fetch(e.url, { headers: { connection: 'close' } })).arrayBuffer()),
    ),
  );
}

async function analysedBytes(vs: string): Promise<Buffer | undefined> {
  const em = scopedFork(server.runtime.orm, { merchantId: account.merchant.id, modes: ['sandbox'] });
  return (await loadCheckImages(server.runtime, em, vs)).document_front;
}

describe('evidence is immutable once complete accepts it', () => {
  it('a write to the upload URL after complete, after submit and after the decision changes nothing the engine, a reviewer or a key reads', async () => {
    const vs = await documentSession();
    const created = await server.request(`/v1/verifications/${vs}/uploads`, {
      token: sandbox,
      body: { kind: 'document', content_type: 'image/jpeg', side: 'front' },
    });
    expect(created.status).toBe(201);
    const original = jpegBytes(70);
    expect((await put(created.body.upload_url, original)).status).toBe(200);

    // Completing the last upload the flow needs is the key API's submit: the session moves to processing.
    const completed = await server.request(`/v1/verifications/${vs}/uploads/${created.body.upload_id}/complete`, {
      method: 'POST',
      token: sandbox,
    });
    expect(completed.status).toBe(200);
    const [row] = await server.sql<{ sha256: string; size: string; evidence_key: string; storage_key: string }>(
      'select sha256, size, evidence_key, storage_key from uploads where id = $1',
      [created.body.upload_id],
    );
    expect(row).toMatchObject({ sha256: sha256(original), size: String(original.length) });
    expect(row!.evidence_key.startsWith(SEALED_PREFIX)).toBe(true);

    // After complete (the session is now processing: this is also "after submit"): 25 MiB, over the 20 MiB limit and not a JPEG.
    const swapped = Buffer.alloc(25 * MiB, 0x41);
    expect((await put(created.body.upload_url, swapped)).status).toBe(200);
    expect(sha256((await analysedBytes(vs))!)).toBe(sha256(original));
    for (const bytes of await servedEvidence(vs)) expect(sha256(bytes)).toBe(sha256(original));

    // After the decision.
    const settled = await waitFor(
      async () => {
        const res = await server.request(`/v1/verifications/${vs}`, { token: sandbox });
        return res.body.status !== 'processing' && res.body.status !== 'pending' ? res.body : undefined;
      },
      60_000,
      `${vs} to settle`,
    );
    expect(settled.status).not.toBe('processing');
    const another = jpegBytes(5000);
    expect((await put(created.body.upload_url, another)).status).toBe(200);
    expect(sha256((await analysedBytes(vs))!)).toBe(sha256(original));
    for (const bytes of await servedEvidence(vs)) expect(sha256(bytes)).toBe(sha256(original));

    // The late write is recognised as such (the upload key was emptied at complete): completing again keeps the record and drops it.
    expect(await server.runtime.storage.head(row!.storage_key)).toMatchObject({ size: another.length });
    const again = await server.request(`/v1/verifications/${vs}/uploads/${created.body.upload_id}/complete`, {
      method: 'POST',
      token: sandbox,
    });
    expect(again.body).toEqual(completed.body);
    expect(await server.runtime.storage.head(row!.storage_key)).toBeNull();
    const [after] = await server.sql<{ sha256: string; size: string }>(
      'select sha256, size from uploads where id = $1',
      [created.body.upload_id],
    );
    expect(after).toMatchObject({ sha256: sha256(original), size: String(original.length) });
  });

  it('the bytes checked are the sealed copy: an object swapped in before complete is checked as itself (size limit, sniffing)', async () => {
    const vs = await documentSession();
    const created = await server.request(`/v1/verifications/${vs}/uploads`, {
      token: sandbox,
      body: { kind: 'document', content_type: 'image/jpeg' },
    });
    expect((await put(created.body.upload_url, Buffer.alloc(4096, 0x41))).status).toBe(200);
    const refused = await server.request(`/v1/verifications/${vs}/uploads/${created.body.upload_id}/complete`, {
      method: 'POST',
      token: sandbox,
    });
    expect(refused.body.error.code).toBe('UPLOAD_CONTENT_MISMATCH');
    const [row] = await server.sql<{ status: string; evidence_key: string | null }>(
      'select status, evidence_key from uploads where id = $1',
      [created.body.upload_id],
    );
    expect(row).toEqual({ status: 'pending', evidence_key: null });
  });

  it('reads of stored objects are bounded: more than the cap stops the read; evidence whose bytes changed is never returned', async () => {
    const storage = server.runtime.storage;
    const key = `test/bounded-${Date.now()}`;
    await storage.client.send(
      new PutObjectCommand({ Bucket: storage.bucket, Key: key, Body: Buffer.alloc(3 * MiB, 1) }),
    );
    await expect(storage.readBounded(key, 1 * MiB)).rejects.toBeInstanceOf(ObjectTooLargeError);
    const whole = await storage.readBounded(key, 3 * MiB, { prefixBytes: 16 });
    expect(whole).toMatchObject({ size: 3 * MiB, sha256: sha256(Buffer.alloc(3 * MiB, 1)) });
    expect(whole.prefix).toHaveLength(16);
    expect((await storage.readPrefix(key, 100)).length).toBe(100);

    const sealed = await storage.seal(key);
    const ref = { storageKey: key, evidenceKey: sealed, size: 3 * MiB, sha256: whole.sha256 };
    expect((await storage.readEvidence(ref)).length).toBe(3 * MiB);
    // Changed behind the service's back (only its own credentials can): refused, whether larger or same size.
    await storage.client.send(
      new PutObjectCommand({ Bucket: storage.bucket, Key: sealed, Body: Buffer.alloc(3 * MiB, 2) }),
    );
    await expect(storage.readEvidence(ref)).rejects.toBeInstanceOf(EvidenceIntegrityError);
    await storage.client.send(
      new PutObjectCommand({ Bucket: storage.bucket, Key: sealed, Body: Buffer.alloc(4 * MiB, 1) }),
    );
    await expect(storage.readEvidence(ref)).rejects.toBeInstanceOf(EvidenceIntegrityError);
    expect(() => storage.presignPut(sealed, 'image/jpeg', 60)).toThrow(/sealed/);
    await storage.delete(key);
    await storage.delete(sealed);
  });
});
