import { Entity, ManyToOne, OptionalProps, PrimaryKey, PrimaryKeyProp, Property } from '@mikro-orm/core';
import { newId } from '../ids.js';
import { Applicant } from './applicant.entity.js';
import { TenantOwned } from './scoped.js';
import { Verification } from './verification.entity.js';

/** A label; retired rather than erased, so what carries it keeps showing it. */
@Entity({ tableName: 'tags' })
export class Tag extends TenantOwned {
  [OptionalProps]?: 'id' | 'color' | 'description' | 'retiredAt' | 'createdAt' | 'updatedAt';

  @PrimaryKey({ type: 'string', length: 40 })
  id: string = newId('tag');

  @Property({ type: 'string', length: 100 })
  name!: string;

  /** Normalised name (High Risk and high-risk are one tag); unique among live tags. */
  @Property({ type: 'string', length: 100 })
  slug!: string;

  @Property({ type: 'string', length: 20 })
  color: string = 'slate';

  @Property({ type: 'string', length: 500, nullable: true })
  description?: string | null = null;

  @Property({ type: 'Date', columnType: 'timestamptz(3)', nullable: true })
  retiredAt?: Date | null = null;
}

@Entity({ tableName: 'verification_tags' })
export class VerificationTag {
  [PrimaryKeyProp]?: ['verification', 'tag'];
  [OptionalProps]?: 'createdAt';

  @ManyToOne(() => Verification, { primary: true, fieldName: 'verification_id' })
  verification!: Verification;

  @ManyToOne(() => Tag, { primary: true, fieldName: 'tag_id', index: true })
  tag!: Tag;

  @Property({ type: 'Date', columnType: 'timestamptz(3)' })
  createdAt: Date = new Date();
}

@Entity({ tableName: 'applicant_tags' })
export class ApplicantTag {
  [PrimaryKeyProp]?: ['applicant', 'tag'];
  [OptionalProps]?: 'createdAt';

  @ManyToOne(() => Applicant, { primary: true, fieldName: 'applicant_id' })
  applicant!: Applicant;

  @ManyToOne(() => Tag, { primary: true, fieldName: 'tag_id', index: true })
  tag!: Tag;

  @Property({ type: 'Date', columnType: 'timestamptz(3)' })
  createdAt: Date = new Date();
}
