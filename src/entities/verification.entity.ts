import { Collection, Entity, Index, ManyToOne, OneToMany, OptionalProps, PrimaryKey, Property } from '@mikro-orm/core';
import { newId } from '../ids.js';
import { Applicant } from './applicant.entity.js';
import type { Check } from './check.entity.js';
import { Flow, type Step } from './flow.entity.js';
import { TenantOwned } from './scoped.js';

export type VerificationStatus = 'pending' | 'processing' | 'approved' | 'rejected' | 'manual_review' | 'expired';
export type Verdict = 'approve' | 'reject' | 'review';
export type ChangeReason = 'engine' | 'reviewer' | 'auto_policy';

/** What the session runs with, frozen at creation (a flow edited later does not change it). */
export interface FlowSnapshot {
  steps: Step[];
  sensitivity?: number | null;
  acceptedDocumentTypes: string[];
  expiryPolicy?: Record<string, unknown> | null;
  policyTree?: Record<string, unknown> | null;
  countryPolicy?: Record<string, unknown> | null;
}

/** Sandbox simulation input (decisions.md), kept encrypted inside `identity` when it carries a document. */
export interface SandboxInput {
  outcome: 'approved' | 'rejected' | 'review' | 'pending';
  reason_codes?: string[];
}

/** The applicant's consent as the hosted page recorded it (decisions.md). */
export interface Consent {
  version: string;
  language: string;
  given_at: string;
}

/** A verification session. Identity is stored encrypted; matching uses keyed fingerprints. */
@Entity({ tableName: 'verifications' })
@Index({ properties: ['merchant', 'mode', 'createdAt', 'id'] })
@Index({ properties: ['merchant', 'mode', 'status', 'createdAt'] })
@Index({ properties: ['merchant', 'mode', 'emailFingerprint'] })
@Index({ properties: ['merchant', 'mode', 'referenceFingerprint'] })
@Index({ properties: ['merchant', 'mode', 'documentFingerprint'] })
@Index({ properties: ['merchant', 'mode', 'nationalIdFingerprint'] })
export class Verification extends TenantOwned {
  [OptionalProps]?:
    | 'id'
    | 'status'
    | 'verdict'
    | 'score'
    | 'reasonCodes'
    | 'changeReason'
    | 'identityVersion'
    | 'identityEditedAt'
    | 'locale'
    | 'metadata'
    | 'sequence'
    | 'applicant'
    | 'sandbox'
    | 'isPreview'
    | 'identity'
    | 'emailFingerprint'
    | 'referenceFingerprint'
    | 'documentFingerprint'
    | 'nationalIdFingerprint'
    | 'documentExpiresOn'
    | 'apiKeyId'
    | 'declineType'
    | 'decidedAt'
    | 'createdAt'
    | 'updatedAt'
    | 'retentionPurgedAt'
    | 'consent'
    | 'consentDeclinedAt'
    | 'returnUrl';

  @PrimaryKey({ type: 'string', length: 40 })
  id: string = newId('vs');

  @Property({ type: 'string', length: 20 })
  status: VerificationStatus = 'pending';

  /** The flow that actually ran (resolved even when none was named). */
  @ManyToOne(() => Flow, { fieldName: 'flow_id' })
  flow!: Flow;

  @Property({ type: 'json' })
  flowSnapshot!: FlowSnapshot;

  @Property({ type: 'string', length: 10, nullable: true })
  verdict?: Verdict | null = null;

  @Property({ type: 'double', nullable: true })
  score?: number | null = null;

  @Property({ type: 'string[]', columnType: 'text[]' })
  reasonCodes: string[] = [];

  @Property({ type: 'string', length: 20, nullable: true })
  changeReason?: ChangeReason | null = null;

  /** `final` or `retryable` (R6) for rejections; null otherwise. */
  @Property({ type: 'string', length: 10, nullable: true })
  declineType?: 'final' | 'retryable' | null = null;

  @Property({ type: 'integer' })
  identityVersion: number = 0;

  @Property({ type: 'Date', columnType: 'timestamptz(3)', nullable: true })
  identityEditedAt?: Date | null = null;

  @Property({ type: 'string', length: 64, hidden: true })
  clientTokenHash!: string;

  @Property({ type: 'string', length: 35 })
  locale: string = 'en';

  @Property({ type: 'json' })
  metadata: Record<string, string> = {};

  @Property({ type: 'Date', columnType: 'timestamptz(3)' })
  expiresAt!: Date;

  /** Grows with every change of the verification; carried by its events so receivers can drop stale ones. */
  @Property({ type: 'integer' })
  sequence: number = 0;

  @ManyToOne(() => Applicant, { fieldName: 'applicant_id', nullable: true })
  applicant?: Applicant | null = null;

  @Property({ type: 'json', nullable: true })
  sandbox?: SandboxInput | null = null;

  @Property({ type: 'boolean' })
  isPreview: boolean = false;

  /** The API key whose traffic this is (webhook api_key_ids routing). */
  @Property({ type: 'uuid', nullable: true })
  apiKeyId?: string | null = null;

  /** AES-256-GCM ciphertext of the applicant identity (fields, email, reference, document). */
  @Property({ type: 'text', nullable: true, hidden: true, lazy: true })
  identity?: string | null = null;

  @Property({ type: 'string', length: 64, nullable: true, hidden: true })
  emailFingerprint?: string | null = null;

  @Property({ type: 'string', length: 64, nullable: true, hidden: true })
  referenceFingerprint?: string | null = null;

  @Property({ type: 'string', length: 64, nullable: true, hidden: true })
  documentFingerprint?: string | null = null;

  @Property({ type: 'string', length: 64, nullable: true, hidden: true })
  nationalIdFingerprint?: string | null = null;

  /** The read document's expiry (an approval stops refusing repeats after it, R9). */
  @Property({ type: 'string', columnType: 'date', nullable: true })
  documentExpiresOn?: string | null = null;

  @Property({ type: 'Date', columnType: 'timestamptz(3)', nullable: true })
  decidedAt?: Date | null = null;

  @Property({ type: 'Date', columnType: 'timestamptz(3)', nullable: true })
  retentionPurgedAt?: Date | null = null;

  /** Given on the hosted page before any capture; null until then (and when declined). */
  @Property({ type: 'json', nullable: true })
  consent?: Consent | null = null;

  /** When the applicant declined consent: the session stays pending and expires with CONSENT_DECLINED. */
  @Property({ type: 'Date', columnType: 'timestamptz(3)', nullable: true })
  consentDeclinedAt?: Date | null = null;

  /** Where the hosted page's end screen sends the applicant back to (set by the key at create). */
  @Property({ type: 'string', length: 2048, nullable: true })
  returnUrl?: string | null = null;

  @OneToMany('Check', 'verification', { orderBy: { position: 'asc' } as never })
  checks = new Collection<Check>(this);
}
