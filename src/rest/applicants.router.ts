import Router from '@koa/router';
import { getApplicant, listApplicants, tagApplicant, untagApplicant } from '../services/verifications/index.js';
import { requirePermission, svc } from '../http/auth.js';
import { presentList } from './presenters.js';
import { presentApplicant, presentTagReferenceList, presentTagRemoval } from './tag.presenter.js';
import { listApplicantsQuery } from './tags.schema.js';
import { parseTagging } from './tags.router.js';
import { pageParams, parseInput } from './validate.js';

/** /v1/applicants: non-sensitive metadata only, and the tags waiting on a person. */
export function applicantsRouter(): Router {
  const router = new Router();

  router.get('/v1/applicants', requirePermission('verification:read'), async (ctx) => {
    const query = parseInput(listApplicantsQuery, ctx.query);
    ctx.body = presentList(await listApplicants(svc(ctx), pageParams(query)), presentApplicant);
  });

  router.get('/v1/applicants/:id', requirePermission('verification:read'), async (ctx) => {
    ctx.body = presentApplicant(await getApplicant(svc(ctx), ctx.params.id));
  });

  router.post('/v1/applicants/:id/tags', requirePermission('verification:create'), async (ctx) => {
    const input = parseTagging(ctx.request.body);
    ctx.body = presentTagReferenceList(await tagApplicant(svc(ctx), ctx.params.id, input));
  });

  router.delete('/v1/applicants/:id/tags/:tagId', requirePermission('verification:create'), async (ctx) => {
    await untagApplicant(svc(ctx), ctx.params.id, ctx.params.tagId);
    ctx.body = presentTagRemoval(ctx.params.tagId);
  });

  return router;
}
