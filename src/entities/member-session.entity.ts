import { Entity, ManyToOne, OptionalProps, PrimaryKey, Property } from '@mikro-orm/core';
import { newUuid } from '../ids.js';
import { Member } from './member.entity.js';
import { MerchantOwned } from './scoped.js';

/** A signed-in console session; the bearer token is stored as its SHA-256 only. */
@Entity({ tableName: 'member_sessions' })
export class MemberSession extends MerchantOwned {
  [OptionalProps]?: 'id' | 'revokedAt' | 'createdAt';

  @PrimaryKey({ type: 'uuid' })
  id: string = newUuid();

  @ManyToOne(() => Member, { fieldName: 'member_id', index: true })
  member!: Member;

  @Property({ type: 'string', length: 64, unique: true, hidden: true })
  tokenHash!: string;

  @Property({ type: 'Date', columnType: 'timestamptz(3)', index: true })
  expiresAt!: Date;

  @Property({ type: 'Date', columnType: 'timestamptz(3)', nullable: true })
  revokedAt?: Date | null = null;
}
