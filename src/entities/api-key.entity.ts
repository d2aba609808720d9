import { Entity, Index, OptionalProps, PrimaryKey, Property } from '@mikro-orm/core';
import { newUuid } from '../ids.js';
import { TenantOwned } from './scoped.js';

export type KeyAccess = 'read_write' | 'read_only';

/** A secret API key. Only its SHA-256 is stored; the environment is `mode`. */
@Entity({ tableName: 'api_keys' })
@Index({ properties: ['merchant', 'mode', 'createdAt', 'id'] })
export class ApiKey extends TenantOwned {
  [OptionalProps]?:
    'id' | 'access' | 'status' | 'permissions' | 'lastUsedAt' | 'expiresAt' | 'revokedAt' | 'createdAt' | 'updatedAt';

  @PrimaryKey({ type: 'uuid' })
  id: string = newUuid();

  @Property({ type: 'string', length: 200 })
  name!: string;

  @Property({ type: 'string', length: 64, unique: true, hidden: true })
  secretHash!: string;

  @Property({ type: 'string', length: 12 })
  keyPrefix!: string;

  @Property({ type: 'string[]', columnType: 'text[]' })
  permissions: string[] = [];

  @Property({ type: 'string', length: 20 })
  access: KeyAccess = 'read_write';

  @Property({ type: 'string', length: 20 })
  status: 'active' | 'revoked' = 'active';

  @Property({ type: 'Date', columnType: 'timestamptz(3)', nullable: true })
  lastUsedAt?: Date | null = null;

  @Property({ type: 'Date', columnType: 'timestamptz(3)', nullable: true })
  expiresAt?: Date | null = null;

  @Property({ type: 'Date', columnType: 'timestamptz(3)', nullable: true })
  revokedAt?: Date | null = null;
}
