// Issue 27, item 8: the default (embedded) object store answers only signed requests, like a
// private bucket on real S3: a presigned URL or the service's own credentials. Before, a plain
// GET of the bucket on 127.0.0.1 listed every account's documents, and GET/PUT/DELETE worked unsigned.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import type { BootstrapResult } from '../../src/services/access/index.js';
import { withTestAccount } from '../support/account.js';
import { jpegBytes } from '../support/fixtures.js';
import type { TestServer } from '../support/test-server.js';

let server: TestServer;
let account: BootstrapResult;
let sandbox: string;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'idv-embedded-store-'));

// No S3_ENDPOINT: the service starts its embedded store under DATA_DIR, as `npm start` does.
withTestAccount((t) => ({ server, account, sandbox } = t), { env: { S3_ENDPOINT: '', DATA_DIR: dataDir } });
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

const plain = (url: string, init: RequestInit = {}) =>
  fetch(url, { ...init, headers: { ...(init.headers as Record<string, string>), connection: 'close' } });

async function storeUrl(): Promise<string> {
  const endpoint = await server.runtime.storage.client.config.endpoint!();
  return `${endpoint.protocol}//${endpoint.hostname}:${endpoint.port}`;
}

/** One completed document upload through the key API; returns its sealed evidence key. */
async function evidence(): Promise<{ vs: string; key: string }> {
  const vs = (await server.request('/v1/verifications', { token: sandbox, body: { sandbox: { outcome: 'pending' } } }))
    .body.id;
  const created = await server.request(`/v1/verifications/${vs}/uploads`, {
    token: sandbox,
    body: { kind: 'document', content_type: 'image/jpeg' },
  });
  expect(created.status).toBe(201);
  const put = await plain(created.body.upload_url, {
    method: 'PUT',
    body: new Uint8Array(jpegBytes()),
    headers: { 'content-type': 'image/jpeg' },
  });
  expect(put.status).toBe(200); // a presigned URL is a valid signature
  expect(
    (
      await server.request(`/v1/verifications/${vs}/uploads/${created.body.upload_id}/complete`, {
        method: 'POST',
        token: sandbox,
      })
    ).status,
  ).toBe(200);
  const [row] = await server.sql<{ evidence_key: string }>('select evidence_key from uploads where id = $1', [
    created.body.upload_id,
  ]);
  return { vs, key: row!.evidence_key };
}

describe('the embedded object store demands valid signatures', () => {
  it('anonymous GET of the bucket, and unsigned GET, PUT and DELETE of an object, are refused with 403', async () => {
    const { key } = await evidence();
    const base = `${await storeUrl()}/${server.config.s3.bucket}`;
    const listing = await plain(`${base}?list-type=2`);
    expect(listing.status).toBe(403);
    const listed = await listing.text();
    expect(listed).not.toContain(account.merchant.id);
    expect((await plain(base)).status).toBe(403);
    expect((await plain(`${await storeUrl()}/`)).status).toBe(403);

    const object = `${base}/${key}`;
    const get = await plain(object);
    expect(get.status).toBe(403);
    expect(Buffer.from(await get.arrayBuffer()).includes(jpegBytes().subarray(0, 12))).toBe(false);
    const put = await plain(`${base}/${account.merchant.id}/planted`, {
      method: 'PUT',
      body: 'x',
      headers: { 'content-type': 'image/jpeg' },
    });
    expect(put.status).toBe(403);
    await put.arrayBuffer();
    expect(await server.runtime.storage.head(`${account.merchant.id}/planted`)).toBeNull();
    const del = await plain(object, { method: 'DELETE' });
    expect(del.status).toBe(403);
    await del.arrayBuffer();
    expect(await server.runtime.storage.head(key)).not.toBeNull();
  });

  it("s3rver's well-known S3RVER key, or the service's key id with a wrong secret, is refused", async () => {
    await evidence();
    const endpoint = await storeUrl();
    for (const credentials of [
      { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
      {
        accessKeyId: server.runtime.storage.client.config.credentials
          ? (await server.runtime.storage.client.config.credentials()).accessKeyId
          : '',
        secretAccessKey: 'guessed',
      },
    ]) {
      const client = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials });
      try {
        await expect(client.send(new ListObjectsV2Command({ Bucket: server.config.s3.bucket }))).rejects.toMatchObject({
          $metadata: { httpStatusCode: 403 },
        });
      } finally {
        client.destroy();
      }
    }
  });

  it("presigned URLs and the service's own credentials work; the key pair is the installation's own, kept 0600 under DATA_DIR", async () => {
    const { vs, key } = await evidence();
    const read = await server.request(`/v1/verifications/${vs}?include=documents`, { token: sandbox });
    const download = await plain(read.body.evidence[0].url);
    expect(download.status).toBe(200);
    expect(Buffer.from(await download.arrayBuffer())).toEqual(jpegBytes());
    expect((await server.runtime.storage.head(key))?.size).toBe(jpegBytes().length);

    const file = path.join(dataDir, 's3-credentials.json');
    const stored = JSON.parse(fs.readFileSync(file, 'utf8'));
    expect(stored.accessKeyId).not.toBe('S3RVER');
    expect(stored.secretAccessKey.length).toBeGreaterThanOrEqual(32);
    expect(fs.statSync(file).mode & 0o077).toBe(0);
  });
});
