import fs from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import S3rver from '@20minutes/s3rver';

export interface EmbeddedStore {
  endpoint: string;
  stop(): Promise<void>;
}

const xmlEscape = (s: string) => s.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * The bucket's CORS rule: browsers at `origins` may PUT to presigned URLs (the hosted page
 * uploads straight to the store) with the Content-Type the URL was signed for.
 */
export function browserUploadCors(origins: string[]): string {
  const allowed = origins.map((o) => `<AllowedOrigin>${xmlEscape(o)}</AllowedOrigin>`).join('');
  return `<CORSConfiguration><CORSRule>${allowed}<AllowedMethod>PUT</AllowedMethod><AllowedHeader>content-type</AllowedHeader><ExposeHeader>ETag</ExposeHeader><MaxAgeSeconds>600</MaxAgeSeconds></CORSRule></CORSConfiguration>`;
}

/**
 * A real S3-compatible server (s3rver, SigV4-verified presigned URLs) storing under `dir`.
 * `corsOrigins`: the origins whose pages may PUT from a browser (the hosted page's origin).
 */
export async function startEmbeddedS3(dir: string, bucket: string, port = 0, corsOrigins: string[] = []): Promise<EmbeddedStore> {
  fs.mkdirSync(dir, { recursive: true });
  const server = new S3rver({
    address: '127.0.0.1',
    port,
    directory: path.resolve(dir),
    silent: true,
    configureBuckets: [{ name: bucket, configs: corsOrigins.length ? [browserUploadCors(corsOrigins)] : [] }],
  });
  const address = (await server.run()) as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    stop: async () => {
      await server.close();
    },
  };
}
