import fs from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import S3rver from '@20minutes/s3rver';

export interface EmbeddedStore {
  endpoint: string;
  stop(): Promise<void>;
}

/** A real S3-compatible server (s3rver, SigV4-verified presigned URLs) storing under `dir`. */
export async function startEmbeddedS3(dir: string, bucket: string, port = 0): Promise<EmbeddedStore> {
  fs.mkdirSync(dir, { recursive: true });
  const server = new S3rver({
    address: '127.0.0.1',
    port,
    directory: path.resolve(dir),
    silent: true,
    configureBuckets: [{ name: bucket }],
  });
  const address = (await server.run()) as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    stop: async () => {
      await server.close();
    },
  };
}
