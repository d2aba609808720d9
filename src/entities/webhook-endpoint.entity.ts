import { Entity, Index, OptionalProps, PrimaryKey, Property } from '@mikro-orm/core';
import { newId } from '../ids.js';
import { TenantOwned } from './scoped.js';

export type WebhookEndpointStatus = 'active' | 'disabled';

/**
 * A receiver of events in one environment (`mode`, fixed at creation). The signing secret is
 * stored encrypted by the vault: delivery must re-read it to sign, so a hash would not do.
 */
@Entity({ tableName: 'webhook_endpoints' })
@Index({ properties: ['merchant', 'mode', 'createdAt', 'id'] })
export class WebhookEndpoint extends TenantOwned {
  [OptionalProps]?:
    | 'id'
    | 'status'
    | 'apiKeyIds'
    | 'description'
    | 'failingSince'
    | 'disabledReason'
    | 'consecutiveFailures'
    | 'pausedUntil'
    | 'deletedAt'
    | 'createdAt'
    | 'updatedAt';

  @PrimaryKey({ type: 'string', length: 40 })
  id: string = newId('whe');

  @Property({ type: 'string', length: 2048 })
  url!: string;

  @Property({ type: 'string[]', columnType: 'text[]' })
  events: string[] = [];

  /** Empty: every key of the account in this environment (fixed list; later keys are not added). */
  @Property({ type: 'string[]', columnType: 'text[]' })
  apiKeyIds: string[] = [];

  @Property({ type: 'string', length: 500, nullable: true })
  description?: string | null = null;

  @Property({ type: 'string', length: 20 })
  status: WebhookEndpointStatus = 'active';

  /** `v1.<iv>.<tag>.<ciphertext>` of the `whsec_` secret (Vault). */
  @Property({ type: 'text', hidden: true, lazy: true })
  secretCiphertext!: string;

  /** Start of the current run of failed attempts; cleared by any success (5-day disable rule). */
  @Property({ type: 'Date', columnType: 'timestamptz(3)', nullable: true })
  failingSince?: Date | null = null;

  /** Why the service disabled it (`gone`, `failing`); null when a caller did or it is active. */
  @Property({ type: 'string', length: 40, nullable: true })
  disabledReason?: string | null = null;

  /** Failed attempts in a row (any delivery); a success resets it. */
  @Property({ type: 'integer', default: 0 })
  consecutiveFailures: number = 0;

  /**
   * While in the future, the endpoint is paused (it kept failing): its deliveries wait without
   * spending attempts and one probe is sent when it lapses. Not a status: it stays `active`.
   */
  @Property({ type: 'Date', columnType: 'timestamptz(3)', nullable: true })
  pausedUntil?: Date | null = null;

  @Property({ type: 'Date', columnType: 'timestamptz(3)', nullable: true })
  deletedAt?: Date | null = null;
}
