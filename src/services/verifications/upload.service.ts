import { LockMode } from '@mikro-orm/core';
import { fileTypeFromBuffer } from 'file-type';
import { Upload, type UploadKind } from '../../entities/upload.entity.js';
import { Verification } from '../../entities/verification.entity.js';
import { ApiError, conflict, invalidRequest, notFound, parameterInvalid, serviceUnavailable } from '../../errors.js';
import { newId } from '../../ids.js';
import { ObjectTooLargeError, type ObjectDigest } from '../../storage/s3.js';
import type { ServiceContext } from '../shared/index.js';
import { onUploadCompleted, runAfterCommit, type AfterCommit } from './verification-lifecycle.js';

/** Upload rules (spec): the only content types accepted, compared case-insensitively. */
export const SUPPORTED_CONTENT_TYPES = [
  'image/jpeg',
  'image/jpg',
  'image/png',
  'image/webp',
  'image/heic',
  'image/heif',
  'application/pdf',
  'video/mp4',
  'video/webm',
  'video/quicktime',
] as const;
export type SupportedContentType = (typeof SUPPORTED_CONTENT_TYPES)[number];

export const UPLOAD_KINDS = ['document', 'selfie', 'video'] as const;
export const UPLOAD_SIDES = ['front', 'back'] as const;
export type UploadSide = (typeof UPLOAD_SIDES)[number];

/** Lifetime of a presigned `upload_url` (decisions.md: 15 minutes). */
export const UPLOAD_URL_TTL_SECONDS = 900;
const MiB = 1024 * 1024;
/** Size limits (decisions.md): 20 MiB for images and PDF, 100 MiB for video. */
export const MAX_IMAGE_BYTES = 20 * MiB;
export const MAX_VIDEO_BYTES = 100 * MiB;
/** How much of the stored object is read to sniff its real type. */
const SNIFF_BYTES = 4100;

export const UPLOAD_ID_PATTERN = /^(doc|bio)_[0-9A-Za-z]{1,64}$/;
const VERIFICATION_ID_PATTERN = /^vs_[0-9A-Za-z]{1,64}$/;

const isVideo = (type: string) => type.startsWith('video/');
const isImage = (type: string) => type.startsWith('image/');

/** Content types each kind may carry: documents are images or PDF, selfies images, videos video. */
const KIND_ACCEPTS: Record<UploadKind, (type: string) => boolean> = {
  document: (type) => isImage(type) || type === 'application/pdf',
  selfie: isImage,
  video: isVideo,
};

/**
 * The detected MIME types that satisfy a declared one: `image/jpg` is JPEG, the HEIC/HEIF
 * family accepts each other (and their sequence variants), MP4 accepts the M4V brand.
 */
const HEIF_FAMILY = ['image/heic', 'image/heif', 'image/heic-sequence', 'image/heif-sequence'];
const SNIFF_MATCHES: Record<SupportedContentType, string[]> = {
  'image/jpeg': ['image/jpeg'],
  'image/jpg': ['image/jpeg'],
  'image/png': ['image/png'],
  'image/webp': ['image/webp'],
  'image/heic': HEIF_FAMILY,
  'image/heif': HEIF_FAMILY,
  'application/pdf': ['application/pdf'],
  'video/mp4': ['video/mp4', 'video/x-m4v'],
  'video/webm': ['video/webm'],
  'video/quicktime': ['video/quicktime'],
};

export interface CreateUploadInput {
  kind: UploadKind;
  contentType: string;
  side?: UploadSide;
  documentType?: string;
  /** A liveness-challenge frame (hosted page, selfie only): the challenge and step the server bound it to. */
  challenge?: { id: string; step: number };
}

export interface CreatedUpload {
  upload: Upload;
  uploadUrl: string;
  expiresIn: number;
}

/** The caller's verification (tenancy filters apply: another account or environment is 404). */
async function findVerification(ctx: ServiceContext, verificationId: string): Promise<Verification> {
  const verification = VERIFICATION_ID_PATTERN.test(verificationId)
    ? await ctx.em.findOne(Verification, { id: verificationId })
    : null;
  if (!verification) throw notFound('verification', verificationId);
  return verification;
}

/** A store that cannot be reached is a 503 the caller may retry, never a 500. */
async function withStorage<T>(ctx: ServiceContext, operation: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof ApiError || error instanceof ObjectTooLargeError) throw error;
    ctx.log.error({ err: error }, `storage ${operation} failed`);
    throw serviceUnavailable(
      'STORAGE_UNAVAILABLE',
      'The artefact store is temporarily unavailable. Retry with backoff.',
    );
  }
}

/** Refuses a content type, side or document type the kind or the flow does not accept. */
function checkCreateInput(verification: Verification, input: CreateUploadInput): SupportedContentType {
  const contentType = input.contentType.trim().toLowerCase() as SupportedContentType;
  if (!SUPPORTED_CONTENT_TYPES.includes(contentType)) {
    throw invalidRequest(
      'UNSUPPORTED_CONTENT_TYPE',
      `Unsupported content_type '${input.contentType}'. Supported: ${SUPPORTED_CONTENT_TYPES.join(', ')}.`,
      {
        param: 'content_type',
      },
    );
  }
  if (!KIND_ACCEPTS[input.kind](contentType)) {
    throw parameterInvalid('content_type', `content_type ${contentType} cannot be uploaded as kind ${input.kind}.`);
  }
  if (input.kind !== 'document') {
    if (input.side !== undefined) throw parameterInvalid('side', 'side is accepted only when kind is document.');
    if (input.documentType !== undefined)
      throw parameterInvalid('document_type', 'document_type is accepted only when kind is document.');
  }
  const accepted = verification.flowSnapshot.acceptedDocumentTypes ?? [];
  if (input.documentType !== undefined && accepted.length > 0 && !accepted.includes(input.documentType)) {
    throw invalidRequest(
      'DOCUMENT_TYPE_NOT_ACCEPTED',
      `This verification's flow does not accept ${input.documentType}. Accepted: ${accepted.join(', ')}.`,
      {
        param: 'document_type',
      },
    );
  }
  return contentType;
}

/**
 * Step one of the two-step upload: records a pending upload and presigns a PUT straight to
 * storage (the bytes never pass through the API). Only while the verification is pending.
 */
export async function createUpload(
  ctx: ServiceContext,
  verificationId: string,
  input: CreateUploadInput,
): Promise<CreatedUpload> {
  const verification = await findVerification(ctx, verificationId);
  const contentType = checkCreateInput(verification, input);
  if (verification.status !== 'pending' || verification.expiresAt.getTime() <= Date.now()) {
    throw conflict(
      'VERIFICATION_NOT_PENDING',
      `Verification ${verification.id} is ${verification.status}; uploads are accepted only while it is pending.`,
    );
  }
  const id = newId(input.kind === 'document' ? 'doc' : 'bio');
  const storageKey = `${verification.merchant.id}/${verification.mode}/${verification.id}/${id}`;
  // Signed with the caller's own spelling: the PUT must send exactly this Content-Type.
  const uploadUrl = await withStorage(ctx, 'presign', () =>
    ctx.runtime.storage.presignPut(storageKey, input.contentType.trim(), UPLOAD_URL_TTL_SECONDS),
  );
  const upload = ctx.em.create(Upload, {
    id,
    merchant: verification.merchant,
    mode: verification.mode,
    verification,
    kind: input.kind,
    side: input.kind === 'document' ? (input.side ?? 'front') : null,
    documentType: input.documentType ?? null,
    challengeId: input.kind === 'selfie' ? (input.challenge?.id ?? null) : null,
    challengeStep: input.kind === 'selfie' ? (input.challenge?.step ?? null) : null,
    contentType,
    storageKey,
  });
  await ctx.em.flush();
  return { upload, uploadUrl, expiresIn: UPLOAD_URL_TTL_SECONDS };
}

/** The caller's upload of that verification; any other is 404. */
async function findUpload(ctx: ServiceContext, verification: Verification, uploadId: string): Promise<Upload> {
  const upload = UPLOAD_ID_PATTERN.test(uploadId) ? await ctx.em.findOne(Upload, { id: uploadId, verification }) : null;
  if (!upload) throw notFound('upload', uploadId);
  return upload;
}

export const maxBytesFor = (contentType: string): number => (isVideo(contentType) ? MAX_VIDEO_BYTES : MAX_IMAGE_BYTES);

/** Whether sniffed bytes (a MIME type from file-type, or undefined) are what was declared. */
export function contentMatches(declared: string, detected: string | undefined): boolean {
  const allowed = SNIFF_MATCHES[declared as SupportedContentType];
  return Boolean(detected && allowed?.includes(detected));
}

/** What `complete` accepted: the sealed copy's key, its size and SHA-256. */
interface SealedObject {
  evidenceKey: string;
  size: number;
  sha256: string;
}

/** Deletes objects on a refusal path; a failure here is logged, the refusal stands. */
async function discard(ctx: ServiceContext, keys: string[]): Promise<void> {
  for (const key of keys)
    await ctx.runtime.storage
      .delete(key)
      .catch((error) => ctx.log.warn({ err: error }, `storage delete of ${key} failed`));
}

/**
 * Checks the stored object and seals it: it must exist (else 400 UPLOAD_NOT_RECEIVED, upload
 * stays pending); it is copied server-side to a sealed key no upload URL can address, and the
 * sealed copy (not the upload key, which stays writable until the URL expires) is what is
 * checked: within the size limit (read streamed, stopped at the limit) and sniffing as the
 * declared type, its SHA-256 kept. Failing either deletes both objects (400 UPLOAD_TOO_LARGE /
 * UPLOAD_CONTENT_MISMATCH).
 */
async function sealObject(ctx: ServiceContext, upload: Upload): Promise<SealedObject> {
  const storage = ctx.runtime.storage;
  const head = await withStorage(ctx, 'head', () => storage.head(upload.storageKey));
  if (!head) {
    throw invalidRequest(
      'UPLOAD_NOT_RECEIVED',
      `Nothing has been stored for upload ${upload.id} yet. PUT the bytes to upload_url, then call complete.`,
    );
  }
  const limit = maxBytesFor(upload.contentType);
  const tooLarge = (size: number | null) =>
    invalidRequest(
      'UPLOAD_TOO_LARGE',
      `Upload ${upload.id} is ${size ?? `more than ${limit}`} bytes; the limit for ${upload.contentType} is ${limit} bytes. The object was deleted.`,
      {
        detail: { ...(size === null ? {} : { size }), max_size: limit },
      },
    );
  if (head.size > limit) {
    await discard(ctx, [upload.storageKey]);
    throw tooLarge(head.size);
  }
  // The copy is taken first and checked after: whatever is written to the upload URL meanwhile is not what gets checked.
  const evidenceKey = await withStorage(ctx, 'copy', () => storage.seal(upload.storageKey));
  let read: ObjectDigest;
  try {
    read = await withStorage(ctx, 'read', () => storage.readBounded(evidenceKey, limit, { prefixBytes: SNIFF_BYTES }));
  } catch (error) {
    if (!(error instanceof ObjectTooLargeError)) {
      await discard(ctx, [evidenceKey]);
      throw error;
    }
    await discard(ctx, [evidenceKey, upload.storageKey]);
    throw tooLarge(null);
  }
  const detected = (await fileTypeFromBuffer(read.prefix))?.mime;
  if (!contentMatches(upload.contentType, detected)) {
    await discard(ctx, [evidenceKey, upload.storageKey]);
    throw invalidRequest(
      'UPLOAD_CONTENT_MISMATCH',
      `The bytes of upload ${upload.id} are not ${upload.contentType}. The object was deleted.`,
    );
  }
  return { evidenceKey, size: read.size, sha256: read.sha256 };
}

/**
 * An object at the upload key of a completed upload was written through its URL after
 * complete (complete deleted the one it sealed): it is never read; say so and remove it.
 */
async function dropLateWrite(ctx: ServiceContext, upload: Upload): Promise<void> {
  const storage = ctx.runtime.storage;
  const late = await storage.head(upload.storageKey).catch(() => null);
  if (!late) return;
  ctx.log.warn(
    `upload ${upload.id}: ${late.size} bytes were written to its upload URL after complete; ignored (the evidence is the sealed copy, sha256 ${upload.sha256})`,
  );
  await discard(ctx, [upload.storageKey]);
}

/**
 * Step two: marks the upload uploaded once its object is in storage and passes the checks,
 * then lets the lifecycle move the session to processing when this was the last upload it
 * needed. Completing an uploaded upload again returns it unchanged. The hosted page passes
 * `startProcessing: false`: there the applicant's submit starts the checks (decisions.md).
 */
export async function completeUpload(
  ctx: ServiceContext,
  verificationId: string,
  uploadId: string,
  options: { startProcessing?: boolean } = {},
): Promise<Upload> {
  const verification = await findVerification(ctx, verificationId);
  const upload = await findUpload(ctx, verification, uploadId);
  if (upload.status === 'uploaded') {
    await dropLateWrite(ctx, upload);
    return upload;
  }
  const sealed = await sealObject(ctx, upload).catch(async (error) => {
    // A concurrent complete may have sealed and emptied the upload key: its record is the answer.
    const now = await ctx.em.findOne(Upload, { id: upload.id }, { refresh: true });
    if (now?.status === 'uploaded') return null;
    throw error;
  });
  if (!sealed) return ctx.em.findOneOrFail(Upload, { id: upload.id });
  const after: AfterCommit = [];
  const completed = await ctx.em.transactional(async (em) => {
    // The row lock serialises concurrent completes of one session, so the move to processing
    // (and its awaiting_service event) happens once, decided on committed upload states.
    const locked = await em.findOneOrFail(
      Verification,
      { id: verification.id },
      { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true },
    );
    const current = await em.findOneOrFail(Upload, { id: upload.id }, { refresh: true });
    if (current.status === 'uploaded') return current;
    current.status = 'uploaded';
    current.size = sealed.size;
    current.evidenceKey = sealed.evidenceKey;
    current.sha256 = sealed.sha256;
    current.uploadedAt = new Date();
    await em.flush();
    if (options.startProcessing !== false) await onUploadCompleted(em, ctx.runtime, locked, after);
    return current;
  });
  // A concurrent complete sealed first: this copy is not the evidence.
  if (completed.evidenceKey !== sealed.evidenceKey) await discard(ctx, [sealed.evidenceKey]);
  // The upload key is not read again: emptying it makes a later write through the URL recognisable.
  await discard(ctx, [upload.storageKey]);
  // The upload is committed either way; a queueing failure is the lifecycle's to recover, not the caller's to retry.
  await runAfterCommit(after).catch((error) =>
    ctx.log.error({ err: error }, `after-commit work for upload ${uploadId} failed`),
  );
  return completed;
}
