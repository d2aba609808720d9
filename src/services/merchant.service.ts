import type { Mode } from '../config.js';
import type { Merchant } from '../entities/merchant.entity.js';
import { notFound } from '../errors.js';
import type { ServiceContext } from './context.js';
import { asDate, preparedRows } from './sql.js';

/** The account as read: a plain snapshot, not a managed entity (nothing here writes it). */
export type MerchantView = Pick<Merchant, 'id' | 'name' | 'slug' | 'status' | 'tier' | 'createdAt' | 'updatedAt'>;

interface MerchantRow {
  id: string;
  name: string;
  slug: string;
  status: Merchant['status'];
  tier: Merchant['tier'];
  created_at: string | Date;
  updated_at: string | Date;
}

/** The caller's own account, never another. */
export async function getMerchant(ctx: ServiceContext): Promise<MerchantView> {
  // A prepared read, not em.findOne: this is on every GET /v1/merchant and /v1/entitlements.
  const [row] = await preparedRows<MerchantRow>(
    ctx.runtime.orm.em.getConnection(),
    'idv_merchant_by_id',
    'select id, name, slug, status, tier, created_at, updated_at from merchants where id = $1',
    [ctx.merchantId],
  );
  if (!row) throw notFound('merchant');
  return { id: row.id, name: row.name, slug: row.slug, status: row.status, tier: row.tier, createdAt: asDate(row.created_at), updatedAt: asDate(row.updated_at) };
}

export interface Entitlements {
  mode: Mode;
  tier: string;
  environment: Mode;
  access: 'read_write' | 'read_only';
  permissions: string[];
}

/** What the calling key may do (GET /v1/entitlements). */
export async function getEntitlements(ctx: ServiceContext): Promise<Entitlements> {
  if (ctx.caller.kind !== 'key') throw notFound('entitlements');
  const merchant = await getMerchant(ctx);
  return {
    mode: ctx.caller.mode,
    tier: merchant.tier,
    environment: ctx.caller.mode,
    access: ctx.caller.access,
    permissions: [...ctx.caller.permissions],
  };
}
