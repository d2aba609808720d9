import type { Mode } from '../config.js';
import { Merchant } from '../entities/merchant.entity.js';
import { notFound } from '../errors.js';
import type { ServiceContext } from './context.js';

/** The caller's own account, never another. */
export async function getMerchant(ctx: ServiceContext): Promise<Merchant> {
  const merchant = await ctx.em.findOne(Merchant, { id: ctx.merchantId });
  if (!merchant) throw notFound('merchant');
  return merchant;
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
