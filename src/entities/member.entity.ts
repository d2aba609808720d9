import { Entity, OptionalProps, PrimaryKey, Property } from '@mikro-orm/core';
import type { Mode } from '../config.js';
import { newId } from '../ids.js';
import { MerchantOwned } from './scoped.js';

/** A team member of an account: role-free permissions and the environments its seat holds. */
@Entity({ tableName: 'members' })
export class Member extends MerchantOwned {
  [OptionalProps]?: 'id' | 'permissions' | 'environments' | 'deactivatedAt' | 'createdAt' | 'updatedAt';

  @PrimaryKey({ type: 'string', length: 40 })
  id: string = newId('mem');

  /**
   * Unique within the account (stored lower-cased). The same person may hold a seat in several
   * accounts, each with its own password; sign-in opens the seat whose password matches.
   */
  @Property({ type: 'string', length: 254, index: 'members_email_index' })
  email!: string;

  @Property({ type: 'string', length: 200 })
  name!: string;

  @Property({ type: 'string', length: 200, hidden: true })
  passwordHash!: string;

  @Property({ type: 'string[]', columnType: 'text[]' })
  permissions: string[] = [];

  @Property({ type: 'string[]', columnType: 'text[]' })
  environments: Mode[] = [];

  /** Set when the member was switched off: no sign-in, no session, never an assignee. */
  @Property({ type: 'Date', columnType: 'timestamptz(3)', nullable: true })
  deactivatedAt?: Date | null = null;

  @Property({ type: 'Date', columnType: 'timestamptz(3)', onUpdate: () => new Date() })
  updatedAt: Date = new Date();
}
