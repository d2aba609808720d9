import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import S3rver from '@20minutes/s3rver';
import AWSAccount from '@20minutes/s3rver/lib/models/account.js';

export interface EmbeddedStore {
  endpoint: string;
  stop(): Promise<void>;
}

export interface StoreCredentials {
  accessKeyId: string;
  secretAccessKey: string;
}

/** s3rver's built-in key pair: public knowledge, so the embedded store never accepts it. */
export const WELL_KNOWN_S3RVER_KEY = 'S3RVER';

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
 * The embedded store's key pair, generated once per data folder (`s3-credentials.json`, mode
 * 0600) unless the operator set S3_ACCESS_KEY_ID / S3_SECRET_ACCESS_KEY; s3rver's well-known
 * S3RVER/S3RVER pair is never used, since anyone could sign with it.
 */
export function embeddedStoreCredentials(
  configured: StoreCredentials,
  dataDir: string,
  logger: { info(message: string): void },
): StoreCredentials {
  if (configured.accessKeyId !== WELL_KNOWN_S3RVER_KEY || configured.secretAccessKey !== WELL_KNOWN_S3RVER_KEY)
    return configured;
  const file = path.join(dataDir, 's3-credentials.json');
  if (fs.existsSync(file)) return JSON.parse(fs.readFileSync(file, 'utf8')) as StoreCredentials;
  fs.mkdirSync(dataDir, { recursive: true });
  const generated = {
    accessKeyId: `IDV${randomBytes(8).toString('hex').toUpperCase()}`,
    secretAccessKey: randomBytes(30).toString('base64url'),
  };
  fs.writeFileSync(file, JSON.stringify(generated), { mode: 0o600 });
  logger.info(`generated the embedded store's credentials in ${file}`);
  return generated;
}

/** The access key id a request is signed with (SigV4 header or presigned query); undefined when unsigned or signed otherwise. */
function signingKeyOf(
  headers: Record<string, string | string[] | undefined>,
  query: Record<string, unknown>,
): string | undefined {
  const authorization = headers.authorization;
  if (typeof authorization === 'string') return /^AWS4-HMAC-SHA256\s+Credential=([^/,\s]+)\//.exec(authorization)?.[1];
  const credential = query['X-Amz-Credential'];
  if (query['X-Amz-Algorithm'] === 'AWS4-HMAC-SHA256' && typeof credential === 'string')
    return credential.split('/')[0];
  return undefined;
}

interface KoaContext {
  method: string;
  headers: Record<string, string | string[] | undefined>;
  query: Record<string, unknown>;
  status: number;
  type: string;
  body: unknown;
}

/**
 * Like real S3 for a private bucket: every request must be SigV4-signed (header or presigned
 * URL) with the service's key; s3rver then verifies the signature and a presigned URL's
 * expiry. s3rver alone serves unsigned requests as anonymous (a plain GET of the bucket listed
 * every account's documents). CORS preflights carry no signature and pass.
 */
function requireSignature(accessKeyId: string) {
  return async (ctx: KoaContext, next: () => Promise<void>) => {
    if (ctx.method === 'OPTIONS' || signingKeyOf(ctx.headers, ctx.query) === accessKeyId) return next();
    ctx.status = 403;
    ctx.type = 'application/xml';
    ctx.body =
      '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>AccessDenied</Code><Message>Access Denied: requests must be signed with the service\'s credentials</Message></Error>';
  };
}

/**
 * A real S3-compatible server (s3rver) storing under `dir` that answers only requests signed
 * with `credentials` (SigV4 header or presigned URL, signature and expiry verified).
 * `corsOrigins`: the origins whose pages may PUT from a browser (the hosted page's origin).
 */
/** The parts of s3rver's filesystem store that deletion touches. */
interface FilesystemStore {
  getResourcePath(bucket: string, key: string, resource: string): string;
  deleteObject(bucket: string, key: string): Promise<void>;
}

/**
 * s3rver's `deleteObject` removes the key's files, then removes each parent folder it finds
 * empty with a recursive `rm`: an object PUT into that folder in between (the hosted page's next
 * frame, a selfie beside a document whose upload key `complete` deletes) is deleted with the
 * folder after its PUT answered 200, and its `complete` then answers UPLOAD_NOT_RECEIVED for good
 * (110 of 300 such pairs lost their object in a loop; test/jobs/embedded-store-delete.test.ts). Here a
 * delete removes the object's own files only; the empty folders it leaves hold no data.
 */
function keepFoldersOnDelete(store: FilesystemStore): void {
  store.deleteObject = async (bucket, key) => {
    const files = ['object', 'object.md5', 'metadata.json'].map((r) => store.getResourcePath(bucket, key, r));
    await Promise.all(files.map((file) => fs.promises.rm(file, { force: true })));
  };
}

export async function startEmbeddedS3(
  dir: string,
  bucket: string,
  credentials: StoreCredentials,
  port = 0,
  corsOrigins: string[] = [],
): Promise<EmbeddedStore> {
  if (credentials.accessKeyId === WELL_KNOWN_S3RVER_KEY)
    throw new Error('the embedded store needs its own credentials, not the well-known S3RVER key');
  fs.mkdirSync(dir, { recursive: true });
  // s3rver keeps key pairs in one process-wide registry; each store signs with its own access key id.
  AWSAccount.DUMMY_ACCOUNT.createKeyPair(credentials.accessKeyId, credentials.secretAccessKey);
  const server = new S3rver({
    address: '127.0.0.1',
    port,
    directory: path.resolve(dir),
    silent: true,
    allowMismatchedSignatures: false,
    configureBuckets: [{ name: bucket, configs: corsOrigins.length ? [browserUploadCors(corsOrigins)] : [] }],
  });
  // Koa composes its middleware when it starts listening: this runs before s3rver's routes.
  (server as unknown as { middleware: unknown[] }).middleware.unshift(requireSignature(credentials.accessKeyId));
  keepFoldersOnDelete((server as unknown as { store: FilesystemStore }).store);
  const address = (await server.run()) as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    stop: async () => {
      await server.close();
    },
  };
}
