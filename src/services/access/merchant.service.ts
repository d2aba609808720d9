import type { Mode } from '../../config.js';
import type { Merchant } from '../../entities/merchant.entity.js';
import { notFound } from '../../errors.js';
import { type ServiceContext, asDate, withConnection } from '../shared/index.js';

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

/**
 * Recently read accounts of this process, for at most `maxAgeMs` (the key cache's window).
 * No endpoint edits an account's profile; one that does must call `invalidate`.
 */
export class MerchantCache {
  private readonly entries = new Map<string, { view: MerchantView; fetchedAt: number }>();

  constructor(readonly maxAgeMs = 1000) {}

  get(id: string): MerchantView | undefined {
    const entry = this.entries.get(id);
    if (!entry) return undefined;
    if (Date.now() - entry.fetchedAt < this.maxAgeMs) return entry.view;
    this.entries.delete(id);
    return undefined;
  }

  put(view: MerchantView): void {
    if (this.entries.size > 10_000) this.entries.clear();
    this.entries.set(view.id, { view, fetchedAt: Date.now() });
  }

  invalidate(id: string): void {
    this.entries.delete(id);
  }
}

/** The caller's own account, never another (served from this process's one-second cache when fresh). */
export async function getMerchant(ctx: ServiceContext): Promise<MerchantView> {
  const cached = ctx.runtime.merchantCache.get(ctx.merchantId);
  if (cached) return cached;
  // A prepared read, not em.findOne: this is on every GET /v1/merchant and /v1/entitlements.
  const [row] = await withConnection(ctx.runtime.orm, (sql) =>
    sql.query<MerchantRow>(
      'select id, name, slug, status, tier, created_at, updated_at from merchants where id = $1',
      [ctx.merchantId],
      'idv_merchant_by_id',
    ),
  );
  if (!row) throw notFound('merchant');
  const view = {
    id: row.id,
    name: row.name,
    slug: row.slug,
    status: row.status,
    tier: row.tier,
    createdAt: asDate(row.created_at),
    updatedAt: asDate(row.updated_at),
  };
  ctx.runtime.merchantCache.put(view);
  return view;
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
