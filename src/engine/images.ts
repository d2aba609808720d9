import { GetObjectCommand } from '@aws-sdk/client-s3';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Upload } from '../entities/upload.entity.js';
import type { Runtime } from '../runtime.js';
import type { CheckImages } from './types.js';

/** The object's bytes (uploads are at most 20 MiB for images, checked when completed). */
async function readObject(runtime: Runtime, key: string): Promise<Buffer> {
  const out = await runtime.storage.client.send(new GetObjectCommand({ Bucket: runtime.storage.bucket, Key: key }));
  return Buffer.from(out.Body ? await out.Body.transformToByteArray() : new Uint8Array());
}

/**
 * The session's completed image uploads, the latest of each role (document front, document
 * back, selfie), read from the store before the checks run. PDFs and videos are not loaded:
 * the checks analyse still images only.
 */
export async function loadCheckImages(runtime: Runtime, em: EntityManager, verificationId: string): Promise<CheckImages> {
  const uploads = await em.find(Upload, { verification: verificationId, status: 'uploaded' }, { orderBy: { uploadedAt: 'desc' } });
  const images: CheckImages = {};
  for (const upload of uploads) {
    if (!upload.contentType.startsWith('image/')) continue;
    const role = upload.kind === 'selfie' ? 'selfie' : upload.kind === 'document' ? (upload.side === 'back' ? 'document_back' : 'document_front') : null;
    if (!role || images[role]) continue;
    images[role] = await readObject(runtime, upload.storageKey);
  }
  return images;
}
