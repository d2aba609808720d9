import { Entity, Index, OptionalProps, PrimaryKey, Property } from '@mikro-orm/core';
import { newId } from '../ids.js';
import { TenantOwned } from './scoped.js';

/**
 * The outbox: every event is written in the transaction of the change that caused it and is
 * the only source webhook delivery reads. `payload` is the envelope's `data`; never identity.
 */
@Entity({ tableName: 'events' })
@Index({ properties: ['dispatchedAt', 'createdAt'] })
export class Event extends TenantOwned {
  [OptionalProps]?: 'id' | 'verificationId' | 'apiKeyId' | 'test' | 'dispatchedAt' | 'createdAt' | 'updatedAt';

  @PrimaryKey({ type: 'string', length: 40 })
  id: string = newId('evt');

  @Property({ type: 'string', length: 60 })
  type!: string;

  @Property({ type: 'string', length: 40, nullable: true, index: true })
  verificationId?: string | null = null;

  /** The key whose traffic caused the event (api_key_ids routing). */
  @Property({ type: 'uuid', nullable: true })
  apiKeyId?: string | null = null;

  @Property({ type: 'json' })
  payload!: Record<string, unknown>;

  @Property({ type: 'boolean' })
  test: boolean = false;

  /** Set once the event has been fanned out to deliveries (webhooks). */
  @Property({ type: 'Date', columnType: 'timestamptz(3)', nullable: true })
  dispatchedAt?: Date | null = null;
}
