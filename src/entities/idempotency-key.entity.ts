import { Entity, OptionalProps, PrimaryKey, Property } from '@mikro-orm/core';

/** A create request remembered for 24 hours per API key, replayed on a retry with the same key and body. */
@Entity({ tableName: 'idempotency_keys' })
export class IdempotencyKey {
  [OptionalProps]?: 'status' | 'responseStatus' | 'responseBody' | 'createdAt';

  @PrimaryKey({ type: 'uuid' })
  apiKeyId!: string;

  @PrimaryKey({ type: 'string', length: 255 })
  key!: string;

  @Property({ type: 'string', length: 80 })
  requestHash!: string;

  @Property({ type: 'string', length: 20 })
  status: 'in_flight' | 'completed' = 'in_flight';

  @Property({ type: 'integer', nullable: true })
  responseStatus?: number | null = null;

  @Property({ type: 'json', nullable: true })
  responseBody?: unknown = null;

  @Property({ type: 'Date', columnType: 'timestamptz(3)' })
  createdAt: Date = new Date();

  @Property({ type: 'Date', columnType: 'timestamptz(3)', index: true })
  expiresAt!: Date;
}
