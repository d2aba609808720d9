import { ManyToOne, Property } from '@mikro-orm/core';
import type { Mode } from '../config.js';
import { Merchant } from './merchant.entity.js';

/**
 * Rows owned by one account. The `merchant` filter (see orm.ts) scopes every query of
 * these entities to the caller's account; it is on by default and fails closed when the
 * caller is unknown.
 */
export abstract class MerchantOwned {
  @ManyToOne(() => Merchant, { fieldName: 'merchant_id', index: true })
  merchant!: Merchant;

  @Property({ type: 'Date', columnType: 'timestamptz(3)' })
  createdAt: Date = new Date();
}

/** Rows owned by one account in one environment; the `tenant` filter scopes by both. */
export abstract class TenantOwned extends MerchantOwned {
  @Property({ type: 'string', length: 10 })
  mode!: Mode;

  @Property({ type: 'Date', columnType: 'timestamptz(3)', onUpdate: () => new Date() })
  updatedAt: Date = new Date();
}
