// The S3-compatible stores that run without configuration: the one the service starts under
// DATA_DIR (src/embedded/s3.ts, the default for a newcomer) and the suite's shared one
// (test/support/global-setup.mjs). An object whose PUT answered 200 is there afterwards,
// whatever is deleted beside it: s3rver's delete removed a folder it had found empty with a
// recursive rm, taking with it an object PUT into that folder in between.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DeleteObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { startEmbeddedS3, type EmbeddedStore } from '../../src/embedded/s3.js';
import { Storage } from '../../src/storage/s3.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'idv-embedded-store-delete-'));
const own = { accessKeyId: 'embedded-store-test', secretAccessKey: 'embedded-store-test-secret' };
let embedded: EmbeddedStore;
const opened: Storage[] = [];

beforeAll(async () => {
  embedded = await startEmbeddedS3(dir, 'evidence', own);
});

afterAll(async () => {
  for (const s of opened) s.destroy();
  await embedded.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

const stores: [string, () => Promise<Storage>][] = [
  ['the store the service starts (embedded)', async () => open(embedded.endpoint, 'evidence', own)],
  [
    "the suite's shared store",
    async () => open(process.env.TEST_S3_ENDPOINT!, 'idv-test', { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' }),
  ],
];

async function open(endpoint: string, bucket: string, credentials: typeof own): Promise<Storage> {
  const storage = new Storage({ endpoint, region: 'us-east-1', bucket, ...credentials });
  opened.push(storage);
  await storage.ensureBucket();
  return storage;
}

describe.each(stores)('%s', (_name, connect) => {
  let storage: Storage;
  let prefix: string;
  beforeAll(async () => {
    storage = await connect();
    prefix = `delete-test-${Date.now()}`;
  });
  const put = (key: string, body: Buffer) =>
    storage.client.send(new PutObjectCommand({ Bucket: storage.bucket, Key: key, Body: body }));

  it('keeps an object PUT beside a delete in the same folder', async () => {
    const body = Buffer.alloc(200_000, 7);
    const lost: string[] = [];
    // Before the fix about a third of these pairs lost the second object after its 200.
    for (let i = 0; i < 60; i++) {
      const folder = `${prefix}/acc/live/ver${i}`;
      await put(`${folder}/first`, body);
      await Promise.all([
        storage.client.send(new DeleteObjectCommand({ Bucket: storage.bucket, Key: `${folder}/first` })),
        put(`${folder}/second`, body),
      ]);
      if (!(await storage.head(`${folder}/second`))) lost.push(folder);
    }
    expect(lost).toEqual([]);
  });

  it('still deletes: the deleted object is gone, its neighbour stays, a second delete is no error', async () => {
    await put(`${prefix}/pair/one`, Buffer.from('one'));
    await put(`${prefix}/pair/two`, Buffer.from('two'));
    await storage.delete(`${prefix}/pair/one`);
    expect(await storage.head(`${prefix}/pair/one`)).toBeNull();
    expect(await storage.head(`${prefix}/pair/two`)).toMatchObject({ size: 3 });
    await expect(storage.delete(`${prefix}/pair/one`)).resolves.toBeUndefined();
  });
});
