import {
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

/** The artefact store: presigned PUT/GET so bytes never pass through the API. */
export class Storage {
  readonly client: S3Client;

  constructor(
    private readonly config: S3Config & { endpoint: string },
  ) {
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

  /** The Content-Type is part of the signature: a PUT with another type is refused by storage. */
  presignPut(key: string, contentType: string, expiresIn: number): Promise<string> {
    return getSignedUrl(this.client, new PutObjectCommand({ Bucket: this.bucket, Key: key, ContentType: contentType }), {
      expiresIn,
      signableHeaders: new Set(['content-type']),
    });
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

  /** The first `length` bytes of an object, for content sniffing. */
  async readPrefix(key: string, length: number): Promise<Uint8Array> {
    const out = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key, Range: `bytes=0-${length - 1}` }));
    return out.Body ? await out.Body.transformToByteArray() : new Uint8Array();
  }

  /** A whole object (the engine reads captured images; uploads are at most 20 MiB for images). */
  async read(key: string): Promise<Buffer> {
    const out = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
    return Buffer.from(out.Body ? await out.Body.transformToByteArray() : new Uint8Array());
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }

  destroy(): void {
    this.client.destroy();
  }
}
