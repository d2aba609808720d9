import { Entity, Index, OptionalProps, PrimaryKey, Property } from '@mikro-orm/core';
import { newId } from '../ids.js';
import { TenantOwned } from './scoped.js';

/** One step of a flow (also the shape of an inline `checks` item). */
export interface Step {
  type: string;
  required: boolean;
  sensitivity?: number | null;
  threshold?: number | null;
  config?: Record<string, unknown>;
}

/** A saved, ordered list of checks with its hosted-page branding and policies. */
@Entity({ tableName: 'flows' })
@Index({ properties: ['merchant', 'mode', 'createdAt', 'id'] })
export class Flow extends TenantOwned {
  [OptionalProps]?:
    | 'id'
    | 'steps'
    | 'isDefault'
    | 'isPreset'
    | 'status'
    | 'version'
    | 'languages'
    | 'acceptedDocumentTypes'
    | 'createdAt'
    | 'updatedAt'
    | 'sensitivity'
    | 'brandName'
    | 'logoUrl'
    | 'accentColor'
    | 'supportUrl'
    | 'privacyUrl'
    | 'defaultEmailLocale'
    | 'countryPolicy'
    | 'networkPolicy'
    | 'expiryPolicy'
    | 'policyTree'
    | 'repeatPolicy'
    | 'deletedAt';

  @PrimaryKey({ type: 'string', length: 40 })
  id: string = newId('flw');

  @Property({ type: 'string', length: 200 })
  name!: string;

  @Property({ type: 'json' })
  steps: Step[] = [];

  @Property({ type: 'boolean' })
  isDefault: boolean = false;

  /** The built-in preset (document, liveness, face_match); read-only. */
  @Property({ type: 'boolean' })
  isPreset: boolean = false;

  @Property({ type: 'string', length: 20 })
  status: 'active' | 'archived' = 'active';

  @Property({ type: 'double', nullable: true })
  sensitivity?: number | null = null;

  @Property({ type: 'string', length: 200, nullable: true })
  brandName?: string | null = null;

  @Property({ type: 'string', length: 2048, nullable: true })
  logoUrl?: string | null = null;

  @Property({ type: 'string', length: 20, nullable: true })
  accentColor?: string | null = null;

  @Property({ type: 'string', length: 2048, nullable: true })
  supportUrl?: string | null = null;

  /** The company's privacy notice, linked from the hosted page's consent step (https only). */
  @Property({ type: 'string', length: 2048, nullable: true })
  privacyUrl?: string | null = null;

  @Property({ type: 'string[]', columnType: 'text[]' })
  languages: string[] = [];

  @Property({ type: 'string', length: 35, nullable: true })
  defaultEmailLocale?: string | null = null;

  @Property({ type: 'json', nullable: true })
  countryPolicy?: Record<string, unknown> | null = null;

  @Property({ type: 'json', nullable: true })
  networkPolicy?: Record<string, unknown> | null = null;

  @Property({ type: 'json', nullable: true })
  expiryPolicy?: Record<string, unknown> | null = null;

  @Property({ type: 'json', nullable: true })
  policyTree?: Record<string, unknown> | null = null;

  @Property({ type: 'string[]', columnType: 'text[]' })
  acceptedDocumentTypes: string[] = [];

  /** Replaces the account's repeat-verification setting for this flow (it does not merge). */
  @Property({ type: 'json', nullable: true })
  repeatPolicy?: Record<string, unknown> | null = null;

  /** Optimistic version; a write naming another version answers 409 STALE_VERSION. */
  @Property({ type: 'integer' })
  version: number = 1;

  /** Deleted flows disappear from reads; verifications that used them keep the id. */
  @Property({ type: 'Date', columnType: 'timestamptz(3)', nullable: true })
  deletedAt?: Date | null = null;
}
