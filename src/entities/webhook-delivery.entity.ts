import { Entity, Index, OptionalProps, PrimaryKey, Property } from '@mikro-orm/core';
import { newId } from '../ids.js';
import { TenantOwned } from './scoped.js';

export type WebhookDeliveryStatus = 'pending' | 'delivered' | 'failed';

/** One logged attempt; never the response body (it may echo anything). */
export interface DeliveryAttempt {
  at: string;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  /** 429/503 deferrals do not consume an attempt of the ladder. */
  deferred?: boolean;
}

/**
 * One event to one endpoint. `body` is the exact bytes built once at fan-out, so every retry
 * (and a redelivery after a crash) sends the same body under the same webhook-id.
 */
@Entity({ tableName: 'webhook_deliveries' })
@Index({ properties: ['endpointId', 'createdAt', 'id'] })
export class WebhookDelivery extends TenantOwned {
  [OptionalProps]?:
    | 'id'
    | 'status'
    | 'test'
    | 'attemptCount'
    | 'deferredSeconds'
    | 'nextAttemptAt'
    | 'leaseUntil'
    | 'claimToken'
    | 'attempts'
    | 'deliveredAt'
    | 'lastError'
    | 'createdAt'
    | 'updatedAt';

  @PrimaryKey({ type: 'string', length: 40 })
  id: string = newId('del');

  @Property({ type: 'string', length: 40 })
  endpointId!: string;

  @Property({ type: 'string', length: 40 })
  eventId!: string;

  @Property({ type: 'string', length: 60 })
  eventType!: string;

  @Property({ type: 'boolean' })
  test: boolean = false;

  @Property({ type: 'text', lazy: true })
  body!: string;

  @Property({ type: 'string', length: 20 })
  status: WebhookDeliveryStatus = 'pending';

  /** Attempts of the ladder consumed (deferrals excluded). */
  @Property({ type: 'integer' })
  attemptCount: number = 0;

  /** Total seconds deferred by 429/503 (capped at 24 hours). */
  @Property({ type: 'integer' })
  deferredSeconds: number = 0;

  @Property({ type: 'Date', columnType: 'timestamptz(3)' })
  nextAttemptAt: Date = new Date();

  /** Held while an attempt is in flight; an expired lease means the sender died mid-attempt. */
  @Property({ type: 'Date', columnType: 'timestamptz(3)', nullable: true })
  leaseUntil?: Date | null = null;

  @Property({ type: 'string', length: 40, nullable: true, hidden: true })
  claimToken?: string | null = null;

  @Property({ type: 'json' })
  attempts: DeliveryAttempt[] = [];

  @Property({ type: 'Date', columnType: 'timestamptz(3)', nullable: true })
  deliveredAt?: Date | null = null;

  @Property({ type: 'string', length: 300, nullable: true })
  lastError?: string | null = null;
}
