import type { EntityManager } from '@mikro-orm/postgresql';
import type { CheckImages } from '../../engine/types.js';
import { Upload } from '../../entities/upload.entity.js';
import type { Runtime } from '../../runtime.js';

/** Content types the image engines decode (PDF and video are not images to them). */
const IMAGE_TYPES = /^image\//;

/**
 * Reads the verification's completed uploads from the store: the latest document front and
 * back, the latest selfie, and every selfie as liveness frames. Called with no transaction
 * open and no lock held.
 */
export async function loadCheckImages(
  runtime: Runtime,
  em: EntityManager,
  verificationId: string,
): Promise<CheckImages> {
  const uploads = await em.find(
    Upload,
    { verification: verificationId, status: 'uploaded' },
    { orderBy: { uploadedAt: 'asc', createdAt: 'asc' } },
  );
  const images: CheckImages = {};
  const selfies: Buffer[] = [];
  for (const upload of uploads) {
    if (upload.kind === 'video') {
      images.video = true;
      images.videoBytes = await runtime.storage.readEvidence(upload);
      continue;
    }
    if (!IMAGE_TYPES.test(upload.contentType)) continue;
    const bytes = await runtime.storage.readEvidence(upload);
    if (upload.kind === 'selfie' && upload.challengeStep !== null && upload.challengeStep !== undefined) {
      (images.challengeFrames ??= []).push({
        challengeId: upload.challengeId ?? null,
        step: upload.challengeStep,
        requestedAt: upload.createdAt.toISOString(),
        bytes,
      });
    } else if (upload.kind === 'selfie') selfies.push(bytes);
    else if ((upload.side ?? 'front') === 'front') images.document_front = bytes;
    else images.document_back = bytes;
  }
  if (selfies.length) {
    images.selfie = selfies[selfies.length - 1];
    images.liveness = selfies;
  }
  return images;
}
