import Router from '@koa/router';
import { z } from 'zod';
import { GRANT_REASONS, type ReverificationGrant } from '../entities/reverification-grant.entity.js';
import { grantReverification, withdrawReverification } from '../services/repeat-control/index.js';
import { requirePermission, svc } from '../http/auth.js';
import type { ReverificationGrantOut, ReverificationRevokedOut } from '../contracts/index.js';
import { parseInput } from './validate.js';

export const grantBody = z.strictObject({
  /** Why; default merchant_request; `other` requires note. */
  reason: z.enum(GRANT_REASONS).optional(),
  note: z.string().max(1000).optional(),
  /** 1 to 30, default 7. */
  expires_in_days: z.number().int().min(1).max(30, 'must be at most 30').optional(),
});

export function presentGrant(g: ReverificationGrant): ReverificationGrantOut {
  return {
    id: g.id,
    object: 'reverification_grant',
    verification: g.verification.id,
    mode: g.mode,
    reason: g.reason,
    note: g.note ?? null,
    expires_at: g.expiresAt.toISOString(),
  };
}

/** POST/DELETE /v1/verifications/{id}/reverification. */
export function reverificationRouter(): Router {
  const router = new Router();
  router.post('/v1/verifications/:id/reverification', requirePermission('verification:create'), async (ctx) => {
    const body = parseInput(grantBody, ctx.request.body ?? {});
    ctx.body = presentGrant(await grantReverification(svc(ctx), ctx.params.id, body));
  });
  router.delete('/v1/verifications/:id/reverification', requirePermission('verification:create'), async (ctx) => {
    const grant = await withdrawReverification(svc(ctx), ctx.params.id);
    ctx.body = {
      object: 'reverification_grant',
      id: grant.id,
      verification: grant.verification.id,
      revoked: true,
    } satisfies ReverificationRevokedOut;
  });
  return router;
}
