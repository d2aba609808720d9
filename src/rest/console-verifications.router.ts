import Router from '@koa/router';
import { z } from 'zod';
import { svc } from '../http/auth.js';
import { listActivity, listAudit } from '../services/audit/index.js';
import type { ServiceContext } from '../services/shared/index.js';
import {
  decidersOf,
  editIdentity,
  getConsoleVerification,
  identityEditInput,
  listConsoleVerifications,
  relationsOf,
  revealIdentity,
  viewEvidence,
  type VerificationListItem,
} from '../services/verifications/index.js';
import type {
  ActivityOut,
  AuditEventOut,
  ConsoleVerificationOut,
  EvidenceListOut,
  IdentityEditOut,
  RevealedIdentityOut,
} from '../contracts/index.js';
import { presentList } from './presenters.js';
import { presentEvidence, presentVerification } from './verification.presenter.js';
import { VERIFICATION_STATUSES } from './verifications.schema.js';
import { listQuery, pageParams, parseInput } from './validate.js';

export const listConsoleVerificationsQuery = listQuery(/^vs_[0-9A-Za-z]+$/, {
  /** `sandbox` or `live`; omitted: every environment the seat holds. */
  mode: z.enum(['sandbox', 'live']).optional(),
  /** A verification status. */
  status: z.enum(VERIFICATION_STATUSES).optional(),
  /** Exact address, ignoring case and surrounding whitespace. */
  email: z.string().max(254, 'must be at most 254 characters').optional(),
  /** Only verifications carrying this tag (tag_...). */
  tag: z
    .string()
    .regex(/^tag_[0-9A-Za-z]{1,64}$/, 'must be a tag id (tag_...)')
    .optional(),
});

export const listAuditQuery = listQuery(/^aud_[0-9A-Za-z]+$/);
export const listActivityQuery = listQuery(/^act_[0-9A-Za-z]+$/);

/** Console rows: the key API's verification plus its own `mode` and `decided_by`. */
async function presenterFor(ctx: ServiceContext, items: VerificationListItem[]) {
  const ids = items.map((v) => v.id);
  const [{ checks, tags }, deciders] = [await relationsOf(ctx, ids), await decidersOf(ctx, ids)];
  const url = ctx.runtime.config.publicUrl;
  return (v: VerificationListItem): ConsoleVerificationOut => ({
    ...presentVerification({ ...v, checks: checks.get(v.id)! }, { publicUrl: url, tags: tags.get(v.id) ?? [] }),
    mode: v.mode,
    decided_by: deciders.get(v.id) ?? null,
  });
}

/** /v1/console/verifications (cases of the seat's environments, identity and evidence reveal), /v1/console/audit and /v1/console/activity. */
export function consoleVerificationsRouter(): Router {
  const router = new Router();
  router.get('/v1/console/verifications', async (ctx) => {
    const query = parseInput(listConsoleVerificationsQuery, ctx.query);
    const s = svc(ctx);
    const page = await listConsoleVerifications(
      s,
      { status: query.status, email: query.email, tagId: query.tag, mode: query.mode },
      pageParams(query),
    );
    ctx.body = presentList(page, await presenterFor(s, page.data));
  });
  router.get('/v1/console/verifications/:id', async (ctx) => {
    const s = svc(ctx);
    const item = await getConsoleVerification(s, ctx.params.id);
    ctx.body = (await presenterFor(s, [item]))(item);
  });
  router.get('/v1/console/verifications/:id/identity', async (ctx) => {
    const revealed = await revealIdentity(svc(ctx), ctx.params.id);
    ctx.body = {
      object: 'applicant_data',
      verification_id: ctx.params.id,
      version: revealed.version,
      fields: revealed.fields,
    } satisfies RevealedIdentityOut;
  });
  router.patch('/v1/console/verifications/:id/identity', async (ctx) => {
    const edited = await editIdentity(svc(ctx), ctx.params.id, parseInput(identityEditInput, ctx.request.body));
    ctx.body = {
      object: 'identity_edit',
      verification_id: ctx.params.id,
      version: edited.version,
      changed_fields: edited.changedFields,
      identity_edited_at: edited.editedAt.toISOString(),
    } satisfies IdentityEditOut;
  });
  router.get('/v1/console/verifications/:id/evidence', async (ctx) => {
    const evidence = await viewEvidence(svc(ctx), ctx.params.id);
    ctx.body = { object: 'list', data: evidence.map(presentEvidence), has_more: false } satisfies EvidenceListOut;
  });
  router.get('/v1/console/audit', async (ctx) => {
    const query = parseInput(listAuditQuery, ctx.query);
    const page = await listAudit(svc(ctx), pageParams(query));
    ctx.body = presentList(page, (row): AuditEventOut => ({
      id: row.id,
      object: 'audit_event',
      member_id: row.memberId,
      action: row.action,
      mode: row.mode,
      verification_id: row.verificationId,
      field_names: row.fieldNames,
      image_count: row.imageCount,
      row_count: row.rowCount,
      created_at: row.createdAt.toISOString(),
    }));
  });
  router.get('/v1/console/activity', async (ctx) => {
    const query = parseInput(listActivityQuery, ctx.query);
    const page = await listActivity(svc(ctx), pageParams(query));
    ctx.body = presentList(page, (row): ActivityOut => ({
      id: row.id,
      object: 'activity',
      member_id: row.memberId,
      action: row.action,
      mode: row.mode,
      target_type: row.targetType,
      target_id: row.targetId,
      // Written only by the trail's recorders, each naming one of the contract's surfaces.
      surface: row.surface as ActivityOut['surface'],
      detail: row.detail,
      created_at: row.createdAt.toISOString(),
    }));
  });
  return router;
}
