import { Entity, OptionalProps, PrimaryKey, Property } from '@mikro-orm/core';
import { newId } from '../ids.js';
import { TenantOwned } from './scoped.js';

/** A person, created once a face has been matched. No identity data. */
@Entity({ tableName: 'applicants' })
export class Applicant extends TenantOwned {
  [OptionalProps]?: 'id' | 'hasIdentityLink' | 'personFingerprint' | 'createdAt' | 'updatedAt';

  @PrimaryKey({ type: 'string', length: 40 })
  id: string = newId('app');

  @Property({ type: 'boolean' })
  hasIdentityLink: boolean = false;

  /** Keyed fingerprint of the person's document or national id, to link later verifications. */
  @Property({ type: 'string', length: 64, nullable: true, hidden: true, index: true })
  personFingerprint?: string | null = null;
}
