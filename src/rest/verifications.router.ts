import Router from '@koa/router';
import type { Context } from 'koa';
import { z } from 'zod';
import { type ServiceContext, withIdempotency } from '../services/shared/index.js';
import { notFound } from '../errors.js';
import {
  assertMayInclude,
  createVerification,
  listVerificationItems,
  readIncluded,
  relationsOf,
  verificationItem,
  type CreatedVerification,
  type Include,
  type VerificationListItem,
} from '../services/verifications/index.js';
import type { VerificationOut } from '../contracts/index.js';
import { requirePermission, svc } from '../http/auth.js';
import { presentList } from './presenters.js';
import { presentVerification, type VerificationView } from './verification.presenter.js';
import { createVerificationBody, VERIFICATION_STATUSES } from './verifications.schema.js';
import { listQuery, pageParams, parseInput } from './validate.js';

export const listVerificationsQuery = listQuery(/^vs_[0-9A-Za-z]+$/, {
  /** A verification status. */
  status: z.enum(VERIFICATION_STATUSES).optional(),
  /** Exact address, ignoring case and surrounding whitespace. */
  email: z.string().max(254, 'must be at most 254 characters').optional(),
});
/** What `include=` reads (comma-separated); other values are ignored (verifications-read.test.ts). */
export const INCLUDE_VALUES = ['applicant', 'documents'] as const;
export const getVerificationQuery = z.strictObject({
  include: z
    .string()
    .max(200)
    .optional()
    .meta({ description: `Comma-separated list of: ${INCLUDE_VALUES.map((v) => `\`${v}\``).join(', ')}` }),
});

const publicUrl = (ctx: ServiceContext) => ctx.runtime.config.publicUrl;

/**
 * Presents plain verification items (a page, or one) with their checks and tags, read for all
 * of them in two statements; `extra` adds what `include=` read.
 */
async function presenterFor(
  ctx: ServiceContext,
  items: VerificationListItem[],
): Promise<(item: VerificationListItem, extra?: Partial<VerificationView>) => VerificationOut> {
  const ids = items.map((v) => v.id);
  const { checks, tags } = await relationsOf(ctx, ids);
  const url = publicUrl(ctx);
  return (v, extra = {}) =>
    presentVerification({ ...v, checks: checks.get(v.id)! }, { publicUrl: url, tags: tags.get(v.id) ?? [], ...extra });
}

const parseInclude = (raw: string | undefined): Include[] =>
  [...new Set((raw ?? '').split(',').map((s) => s.trim()))].filter((s): s is Include =>
    (INCLUDE_VALUES as readonly string[]).includes(s),
  );

function respond(ctx: Context, status: number, body: unknown): void {
  ctx.status = status;
  ctx.body = body;
}

/** /v1/verifications: create (idempotent), list, read with optional identity. */
export function verificationsRouter(): Router {
  const router = new Router();

  router.post('/v1/verifications', requirePermission('verification:create'), async (ctx) => {
    const s = svc(ctx);
    const key = ctx.get('idempotency-key') || undefined;
    const result = await withIdempotency(s, key, ctx.request.body, async (claim) => {
      const body = parseInput(createVerificationBody, ctx.request.body);
      let answer: ReturnType<typeof presentVerification> | undefined;
      // Presented once: the same body is stored (with the session) and sent.
      const present = (created: CreatedVerification) =>
        (answer ??= presentVerification(created.verification, {
          publicUrl: publicUrl(s),
          clientToken: created.clientToken,
          tags: [],
        }));
      const created = await createVerification(s, body, claim ? { claim, present } : undefined);
      return { status: 201, body: present(created) };
    });
    ctx.set('Idempotency-Replayed', String(result.replayed));
    respond(ctx, result.status, result.body);
  });

  router.get('/v1/verifications', requirePermission('verification:read'), async (ctx) => {
    const query = parseInput(listVerificationsQuery, ctx.query);
    const s = svc(ctx);
    // Plain rows, like GraphQL's page: hydrating each verification and its checks as managed
    // entities held this endpoint to about 35 pages a second (README, Benchmarks).
    const page = await listVerificationItems(s, { status: query.status, email: query.email }, pageParams(query));
    const present = await presenterFor(s, page.data);
    ctx.body = presentList(page, present);
  });

  router.get('/v1/verifications/:id', requirePermission('verification:read'), async (ctx) => {
    const query = parseInput(getVerificationQuery, ctx.query);
    const s = svc(ctx);
    const include = parseInclude(query.include);
    assertMayInclude(s, include);
    // Plain rows, like the list: this is the read integrators poll.
    const item = await verificationItem(s, ctx.params.id);
    if (!item) throw notFound('verification', ctx.params.id);
    const present = await presenterFor(s, [item]);
    ctx.body = present(item, include.length ? await readIncluded(s, item, include) : {});
  });

  return router;
}
