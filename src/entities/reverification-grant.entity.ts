import { Entity, ManyToOne, OptionalProps, PrimaryKey, Property } from '@mikro-orm/core';
import { newId } from '../ids.js';
import { TenantOwned } from './scoped.js';
import { Verification } from './verification.entity.js';

export const GRANT_REASONS = [
  'document_expiring',
  'document_expired',
  'details_changed',
  'periodic_recheck',
  'suspected_fraud',
  'merchant_request',
  'other',
] as const;

/** Permission to verify an approved person again; spent by the next verification it lets through. */
@Entity({ tableName: 'reverification_grants' })
export class ReverificationGrant extends TenantOwned {
  [OptionalProps]?: 'id' | 'note' | 'spentAt' | 'spentByVerificationId' | 'revokedAt' | 'createdAt' | 'updatedAt';

  @PrimaryKey({ type: 'string', length: 40 })
  id: string = newId('rvg');

  @ManyToOne(() => Verification, { fieldName: 'verification_id', index: true })
  verification!: Verification;

  @Property({ type: 'string', length: 30 })
  reason!: (typeof GRANT_REASONS)[number];

  @Property({ type: 'string', length: 1000, nullable: true })
  note?: string | null = null;

  @Property({ type: 'Date', columnType: 'timestamptz(3)' })
  expiresAt!: Date;

  @Property({ type: 'Date', columnType: 'timestamptz(3)', nullable: true })
  spentAt?: Date | null = null;

  @Property({ type: 'string', length: 40, nullable: true })
  spentByVerificationId?: string | null = null;

  @Property({ type: 'Date', columnType: 'timestamptz(3)', nullable: true })
  revokedAt?: Date | null = null;
}
