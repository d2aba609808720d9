import { Entity, OneToOne, OptionalProps, Property } from '@mikro-orm/core';
import { Merchant } from './merchant.entity.js';

export interface RepeatPolicy {
  enabled: boolean;
  scope: 'same_flow' | 'any';
}

export interface ReviewPolicy {
  claim_required: boolean;
  claim_lease_minutes: number;
  presence_ttl_ms: number;
  presence_heartbeat_ms: number;
}

export const DEFAULT_REPEAT_POLICY: RepeatPolicy = { enabled: true, scope: 'same_flow' };
export const DEFAULT_REVIEW_POLICY: ReviewPolicy = {
  claim_required: false,
  claim_lease_minutes: 30,
  presence_ttl_ms: 30000,
  presence_heartbeat_ms: 10000,
};

/** Account-wide settings (decisions.md); one row per account, optimistic `version`. */
@Entity({ tableName: 'account_settings' })
export class AccountSettings {
  [OptionalProps]?:
    'repeatVerification' | 'reverificationPeriodDays' | 'retentionDays' | 'reviewPolicy' | 'version' | 'updatedAt';

  @OneToOne(() => Merchant, { primary: true, fieldName: 'merchant_id' })
  merchant!: Merchant;

  @Property({ type: 'json' })
  repeatVerification: RepeatPolicy = { ...DEFAULT_REPEAT_POLICY };

  /** null: an approval never needs re-verification by age. */
  @Property({ type: 'integer', nullable: true })
  reverificationPeriodDays?: number | null = null;

  @Property({ type: 'integer' })
  retentionDays: number = 1095;

  @Property({ type: 'json' })
  reviewPolicy: ReviewPolicy = { ...DEFAULT_REVIEW_POLICY };

  @Property({ type: 'integer' })
  version: number = 1;

  @Property({ type: 'Date', columnType: 'timestamptz(3)', onUpdate: () => new Date() })
  updatedAt: Date = new Date();
}
