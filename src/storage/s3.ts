import { createHash, randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import {
  CopyObjectCommand,
  CreateBucketCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { S3Config } from '../config.js';

export interface ObjectHead {
  size: number;
  contentType?: string;
}

/** Where stored evidence is sealed: a prefix no presigned PUT is ever made for. */
export const SEALED_PREFIX = 'sealed/';

/** What a bounded read of a whole object saw: its bytes' count and SHA-256, and its first bytes. */
export interface ObjectDigest {
  size: number;
  sha256: string;
  prefix: Buffer;
}

/** An upload's stored evidence: the sealed copy `complete` checked, with its size and digest. */
export interface EvidenceRef {
  storageKey: string;
  evidenceKey?: string | null;
  size?: number | string | null;
  sha256?: string | null;
}

/** An object larger than the reader's cap: the read stopped there, nothing more was buffered. */
export class ObjectTooLargeError extends Error {
  constructor(
    readonly key: string,
    readonly maxBytes: number,
  ) {
    super(`object ${key} is larger than ${maxBytes} bytes`);
    this.name = 'ObjectTooLargeError';
  }
}

/** Evidence whose bytes are not the ones `complete` accepted (size or SHA-256 differ). */
export class EvidenceIntegrityError extends Error {
  constructor(
    readonly key: string,
    detail: string,
  ) {
    super(`evidence ${key} is not what complete accepted: ${detail}`);
    this.name = 'EvidenceIntegrityError';
  }
}

/** Fallback cap for evidence recorded before sealing existed (no size on its row): the image limit. */
const LEGACY_EVIDENCE_MAX_BYTES = 20 * 1024 * 1024;

/** The artefact store: presigned PUT/GET so bytes never pass through the API. */
export class Storage {
  readonly client: S3Client;

  constructor(private readonly config: S3Config & { endpoint: string }) {
    this.client = new S3Client({
      endpoint: config.endpoint,
      region: config.region,
      forcePathStyle: true,
      // Presigned PUTs must not carry a checksum of an empty body (stores other than AWS reject real uploads with BadDigest).
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      credentials: { accessKeyId: config.accessKeyId, secretAccessKey: config.secretAccessKey },
    });
  }

  get bucket(): string {
    return this.config.bucket;
  }

  /**
   * Proves the store answers with these credentials by writing and deleting a probe object,
   * creating the bucket first when it does not exist. Object operations rather than
   * HeadBucket, whose signature the embedded s3rver rejects.
   */
  async ensureBucket(): Promise<void> {
    const probe = () => this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: '.idv-probe', Body: 'ok' }));
    try {
      await probe();
    } catch (error) {
      if ((error as Error).name !== 'NoSuchBucket') throw error;
      await this.client.send(new CreateBucketCommand({ Bucket: this.bucket }));
      await probe();
    }
    await this.delete('.idv-probe');
  }

  /**
   * The Content-Type is part of the signature: a PUT with another type is refused by storage.
   * Never for a sealed key: sealed evidence is written by the service's own credentials only.
   */
  presignPut(key: string, contentType: string, expiresIn: number): Promise<string> {
    if (key.startsWith(SEALED_PREFIX)) throw new Error(`refusing to presign a PUT for sealed key ${key}`);
    return getSignedUrl(
      this.client,
      new PutObjectCommand({ Bucket: this.bucket, Key: key, ContentType: contentType }),
      {
        expiresIn,
        signableHeaders: new Set(['content-type']),
      },
    );
  }

  presignGet(key: string, expiresIn: number): Promise<string> {
    return getSignedUrl(this.client, new GetObjectCommand({ Bucket: this.bucket, Key: key }), { expiresIn });
  }

  /** HeadObject; null when the object is not in storage. */
  async head(key: string): Promise<ObjectHead | null> {
    try {
      const out = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return { size: out.ContentLength ?? 0, contentType: out.ContentType };
    } catch (error) {
      const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
      if (status === 404 || (error as Error).name === 'NotFound' || (error as Error).name === 'NoSuchKey') return null;
      throw error;
    }
  }

  /** The first `length` bytes of an object, for content sniffing (bounded even if the store ignores Range). */
  async readPrefix(key: string, length: number): Promise<Uint8Array> {
    const out = await this.client.send(
      new GetObjectCommand({ Bucket: this.bucket, Key: key, Range: `bytes=0-${length - 1}` }),
    );
    const chunks: Buffer[] = [];
    let read = 0;
    const body = out.Body as Readable | undefined;
    if (!body) return new Uint8Array();
    for await (const chunk of body) {
      chunks.push(chunk as Buffer);
      read += (chunk as Buffer).length;
      if (read >= length) break; // leaving the loop destroys the stream
    }
    return Buffer.concat(chunks).subarray(0, length);
  }

  /**
   * Streams a whole object once, never holding more than `maxBytes` of it: hashes it (SHA-256),
   * keeps its first `prefixBytes` (for sniffing) or, with `keep`, all of it. More than
   * `maxBytes` stops the read with ObjectTooLargeError.
   */
  async readBounded(
    key: string,
    maxBytes: number,
    options: { prefixBytes?: number; keep?: boolean } = {},
  ): Promise<ObjectDigest & { bytes?: Buffer }> {
    const out = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
    const body = out.Body as Readable | undefined;
    const hash = createHash('sha256');
    const kept: Buffer[] = [];
    let size = 0;
    if (out.ContentLength !== undefined && out.ContentLength > maxBytes) {
      body?.destroy();
      throw new ObjectTooLargeError(key, maxBytes);
    }
    const prefixBytes = options.prefixBytes ?? 0;
    if (body) {
      for await (const chunk of body) {
        const buf = chunk as Buffer;
        size += buf.length;
        if (size > maxBytes) throw new ObjectTooLargeError(key, maxBytes); // leaving the loop destroys the stream
        hash.update(buf);
        if (options.keep || size - buf.length < prefixBytes) kept.push(buf);
      }
    }
    const all = Buffer.concat(kept);
    return {
      size,
      sha256: hash.digest('hex'),
      prefix: all.subarray(0, prefixBytes),
      ...(options.keep ? { bytes: all } : {}),
    };
  }

  /**
   * A server-side copy of `key` to a new sealed key (under SEALED_PREFIX, random suffix), which
   * no upload URL can address. Returns the sealed key.
   */
  async seal(key: string): Promise<string> {
    const sealed = `${SEALED_PREFIX}${key}/${randomUUID()}`;
    const source = `${this.bucket}/${key.split('/').map(encodeURIComponent).join('/')}`;
    await this.client.send(new CopyObjectCommand({ Bucket: this.bucket, Key: sealed, CopySource: source }));
    return sealed;
  }

  /** Where an upload's evidence is read: its sealed copy (rows from before sealing: the upload key). */
  evidenceKey(ref: EvidenceRef): string {
    return ref.evidenceKey ?? ref.storageKey;
  }

  /**
   * The evidence `complete` accepted, read with its recorded size as the cap and checked
   * against its recorded SHA-256: different bytes are never returned (EvidenceIntegrityError).
   */
  async readEvidence(ref: EvidenceRef): Promise<Buffer> {
    const key = this.evidenceKey(ref);
    const expectedSize = ref.size === null || ref.size === undefined ? null : Number(ref.size);
    const read = await this.readBounded(key, expectedSize ?? LEGACY_EVIDENCE_MAX_BYTES, { keep: true }).catch(
      (error: Error) => {
        throw error instanceof ObjectTooLargeError && expectedSize !== null
          ? new EvidenceIntegrityError(key, `more than the ${expectedSize} bytes accepted`)
          : error;
      },
    );
    if (expectedSize !== null && read.size !== expectedSize)
      throw new EvidenceIntegrityError(key, `${read.size} bytes, ${expectedSize} accepted`);
    if (ref.sha256 && read.sha256 !== ref.sha256) throw new EvidenceIntegrityError(key, 'SHA-256 differs');
    return read.bytes!;
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }

  destroy(): void {
    this.client.destroy();
  }
}
