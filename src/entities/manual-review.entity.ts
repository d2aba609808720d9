import { Entity, Index, ManyToOne, OptionalProps, PrimaryKey, Property } from '@mikro-orm/core';
import { newUuid } from '../ids.js';
import { TenantOwned } from './scoped.js';
import { Verification } from './verification.entity.js';

export type ReviewStatus = 'queued' | 'in_review' | 'resolved' | 'escalated';

export interface Escalation {
  reason: string;
  recommendation: 'approve' | 'reject' | 'none';
  /** Check type to the escalating reviewer's mark; only checks that ran on the verification. */
  assessment: Record<string, 'pass' | 'fail' | 'unsure'>;
  escalated_by: string;
  escalated_at: string;
  returned_by: string | null;
  return_note: string | null;
}

/** A case waiting on a human decision; ids and decisions only, never applicant data. */
@Entity({ tableName: 'manual_reviews' })
@Index({ properties: ['merchant', 'mode', 'status', 'createdAt'] })
export class ManualReview extends TenantOwned {
  [OptionalProps]?:
    | 'id'
    | 'status'
    | 'decision'
    | 'notes'
    | 'reviewedAt'
    | 'decidedBy'
    | 'escalatedAt'
    | 'claimedBy'
    | 'claimExpiresAt'
    | 'assignedTo'
    | 'escalation'
    | 'createdAt'
    | 'updatedAt';

  @PrimaryKey({ type: 'uuid' })
  id: string = newUuid();

  @ManyToOne(() => Verification, { fieldName: 'verification_id', index: true })
  verification!: Verification;

  @Property({ type: 'string', length: 20 })
  status: ReviewStatus = 'queued';

  @Property({ type: 'string', length: 10, nullable: true })
  decision?: 'approve' | 'reject' | 'review' | null = null;

  @Property({ type: 'text', nullable: true })
  notes?: string | null = null;

  @Property({ type: 'Date', columnType: 'timestamptz(3)', nullable: true })
  reviewedAt?: Date | null = null;

  /** `key:<uuid>` or `member:<id>`; never shown to another decider (REVIEW_ALREADY_DECIDED). */
  @Property({ type: 'string', length: 60, nullable: true })
  decidedBy?: string | null = null;

  /** The member holding the case (console claim); the claim counts only until claimExpiresAt. */
  @Property({ type: 'string', length: 40, nullable: true })
  claimedBy?: string | null = null;

  @Property({ type: 'Date', columnType: 'timestamptz(3)', nullable: true })
  claimExpiresAt?: Date | null = null;

  /** The member the case is routed to (only they may claim it); null: the shared pool. */
  @Property({ type: 'string', length: 40, nullable: true })
  assignedTo?: string | null = null;

  /** The last escalation (decisions.md): kept after a return, with the return note, for the reviewer who raised it. */
  @Property({ type: 'json', nullable: true })
  escalation?: Escalation | null = null;

  /** Set while the case is escalated to a colleague (R8 leaves such cases alone). */
  @Property({ type: 'Date', columnType: 'timestamptz(3)', nullable: true })
  escalatedAt?: Date | null = null;
}
