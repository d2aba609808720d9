import { Entity, ManyToOne, OptionalProps, PrimaryKey, Property } from '@mikro-orm/core';
import { TenantOwned } from './scoped.js';
import { Verification } from './verification.entity.js';

export type UploadKind = 'document' | 'selfie' | 'video';

/** A captured artefact: presigned PUT straight to storage, then completed through the API. */
@Entity({ tableName: 'uploads' })
export class Upload extends TenantOwned {
  [OptionalProps]?:
    | 'status'
    | 'side'
    | 'documentType'
    | 'challengeId'
    | 'challengeStep'
    | 'size'
    | 'uploadedAt'
    | 'analysis'
    | 'evidenceKey'
    | 'sha256'
    | 'createdAt'
    | 'updatedAt';

  /** `doc_` for documents, `bio_` for selfies and videos. */
  @PrimaryKey({ type: 'string', length: 40 })
  id!: string;

  @ManyToOne(() => Verification, { fieldName: 'verification_id', index: true })
  verification!: Verification;

  @Property({ type: 'string', length: 20 })
  kind!: UploadKind;

  @Property({ type: 'string', length: 10, nullable: true })
  side?: 'front' | 'back' | null = null;

  @Property({ type: 'string', length: 40, nullable: true })
  documentType?: string | null = null;

  /** A liveness-challenge frame: the challenge the server bound it to when its URL was asked for, and the step (0 = face the camera). */
  @Property({ type: 'string', length: 40, nullable: true })
  challengeId?: string | null = null;

  @Property({ type: 'integer', nullable: true })
  challengeStep?: number | null = null;

  @Property({ type: 'string', length: 100 })
  contentType!: string;

  @Property({ type: 'string', length: 300 })
  storageKey!: string;

  /**
   * The sealed copy `complete` checked (a key no upload URL can address); null until then. The
   * engine, reviewers and exports read this, never `storageKey`, which stays writable through
   * the upload URL for its lifetime.
   */
  @Property({ type: 'string', length: 400, nullable: true })
  evidenceKey?: string | null = null;

  /** Hex SHA-256 of the sealed bytes, taken by `complete`; every read of the evidence checks it. */
  @Property({ type: 'string', length: 64, nullable: true })
  sha256?: string | null = null;

  @Property({ type: 'string', length: 20 })
  status: 'pending' | 'uploaded' = 'pending';

  @Property({ type: 'bigint', nullable: true })
  size?: number | null = null;

  @Property({ type: 'Date', columnType: 'timestamptz(3)', nullable: true })
  uploadedAt?: Date | null = null;

  /** What the document check read off this image (mrz_valid, barcode_consistent, country). */
  @Property({ type: 'json', nullable: true })
  analysis?: Record<string, unknown> | null = null;
}
