import { Entity, OptionalProps, PrimaryKey, Property } from '@mikro-orm/core';
import { newId } from '../ids.js';

/** The account. It has no sandbox or live state of its own. */
@Entity({ tableName: 'merchants' })
export class Merchant {
  [OptionalProps]?: 'id' | 'status' | 'tier' | 'createdAt' | 'updatedAt';

  @PrimaryKey({ type: 'string', length: 40 })
  id: string = newId('mer');

  @Property({ type: 'string', length: 200 })
  name!: string;

  @Property({ type: 'string', length: 100, unique: true })
  slug!: string;

  @Property({ type: 'string', length: 20 })
  status: 'active' = 'active';

  @Property({ type: 'string', length: 20 })
  tier: 'standard' = 'standard';

  @Property({ type: 'Date', columnType: 'timestamptz(3)' })
  createdAt: Date = new Date();

  @Property({ type: 'Date', columnType: 'timestamptz(3)', onUpdate: () => new Date() })
  updatedAt: Date = new Date();
}
