import { Entity, Index, OptionalProps, PrimaryKey, Property } from '@mikro-orm/core';
import { newUuid } from '../ids.js';
import { TenantOwned } from './scoped.js';

/** One metered check run; sandbox runs are recorded but never billable. */
@Entity({ tableName: 'usage_records' })
@Index({ properties: ['merchant', 'mode', 'createdAt'] })
export class UsageRecord extends TenantOwned {
  [OptionalProps]?: 'id' | 'createdAt' | 'updatedAt';

  @PrimaryKey({ type: 'uuid' })
  id: string = newUuid();

  @Property({ type: 'string', length: 40 })
  verificationId!: string;

  @Property({ type: 'string', length: 30 })
  checkType!: string;

  @Property({ type: 'boolean' })
  billable!: boolean;
}
