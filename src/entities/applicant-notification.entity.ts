import { Entity, OptionalProps, PrimaryKey, Property } from '@mikro-orm/core';
import { newId } from '../ids.js';
import { TenantOwned } from './scoped.js';

/** pending (waiting, or between retries), sent (the mail server accepted it), dropped (reversed decision or no address left), failed (every retry refused). */
export type ApplicantNotificationStatus = 'pending' | 'sent' | 'dropped' | 'failed';

/**
 * An outcome email owed to the applicant after a reviewer's approve or reject. It carries no
 * address: the sender reads it from the verification's encrypted identity when it sends.
 */
@Entity({ tableName: 'applicant_notifications' })
export class ApplicantNotification extends TenantOwned {
  [OptionalProps]?:
    | 'id'
    | 'kind'
    | 'message'
    | 'status'
    | 'sentAt'
    | 'droppedAt'
    | 'attempts'
    | 'lastError'
    | 'failedAt'
    | 'createdAt'
    | 'updatedAt';

  @PrimaryKey({ type: 'string', length: 40 })
  id: string = newId('ntf');

  @Property({ type: 'string', length: 40 })
  verificationId!: string;

  @Property({ type: 'string', length: 20 })
  kind: 'outcome' = 'outcome';

  @Property({ type: 'string', length: 10 })
  decision!: 'approve' | 'reject';

  /** The reviewer's applicant_message, encrypted (null when none was written). */
  @Property({ type: 'text', nullable: true })
  message?: string | null = null;

  @Property({ type: 'string', length: 20 })
  status: ApplicantNotificationStatus = 'pending';

  @Property({ type: 'Date', columnType: 'timestamptz(3)' })
  sendAfter!: Date;

  @Property({ type: 'Date', columnType: 'timestamptz(3)', nullable: true })
  sentAt?: Date | null = null;

  @Property({ type: 'Date', columnType: 'timestamptz(3)', nullable: true })
  droppedAt?: Date | null = null;

  @Property({ type: 'integer', default: 0 })
  attempts: number = 0;

  /** The mail server's last refusal (no address, no body). */
  @Property({ type: 'string', length: 300, nullable: true })
  lastError?: string | null = null;

  @Property({ type: 'Date', columnType: 'timestamptz(3)', nullable: true })
  failedAt?: Date | null = null;
}
