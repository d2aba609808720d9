import Router from '@koa/router';
import { z } from 'zod';
import {
  LOOKUP_MAX_EMAILS,
  lookupVerifications,
  type LookupLatest,
  type LookupRow,
} from '../services/repeat-control/index.js';
import { requirePermission, svc } from '../http/auth.js';
import { parseInput } from './validate.js';
import type { LookupListOut, LookupRowOut } from '../contracts/index.js';
import { iso } from './presenters.js';

export const lookupBody = z.strictObject({
  /**
   * 1 to 1,000 addresses. One row answers each entry (Lookup rule 1), so an entry longer than
   * an address can be (254) is answered found: false, not refused; 1,000 characters bound abuse.
   */
  emails: z
    .array(z.string().max(1000, 'must be at most 1000 characters'))
    .min(1, 'must hold at least one address')
    .max(LOOKUP_MAX_EMAILS, `must hold at most ${LOOKUP_MAX_EMAILS} addresses`),
});

function presentLatest(latest: LookupLatest): NonNullable<LookupRowOut['latest']> {
  return {
    id: latest.id,
    status: latest.status,
    verdict: latest.verdict,
    score: latest.score,
    reason_codes: latest.reasonCodes,
    flow: latest.flowId,
    mode: latest.mode,
    created_at: iso(latest.createdAt),
    updated_at: iso(latest.updatedAt),
    expires_at: iso(latest.expiresAt),
  };
}

export function presentLookupRow(row: LookupRow): LookupRowOut {
  return {
    object: 'verification_lookup',
    email: row.email,
    found: row.found,
    attempts: row.attempts,
    ever_approved: row.everApproved,
    first_attempt_at: iso(row.firstAttemptAt),
    latest: row.latest ? presentLatest(row.latest) : null,
  };
}

/**
 * POST /v1/verifications/lookup: a read (read-only keys may call it); registered before the
 * verifications router. Token cost (1 per 50 addresses) is charged by costOf in auth.ts.
 */
export function lookupRouter(): Router {
  const router = new Router();
  router.post('/v1/verifications/lookup', requirePermission('verification:read', { write: false }), async (ctx) => {
    const body = parseInput(lookupBody, ctx.request.body);
    const result = await lookupVerifications(svc(ctx), body.emails);
    ctx.status = 200;
    ctx.body = { object: 'list', mode: result.mode, data: result.rows.map(presentLookupRow) } satisfies LookupListOut;
  });
  return router;
}
