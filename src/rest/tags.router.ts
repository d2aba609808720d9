import Router from '@koa/router';
import { parameterMissing } from '../errors.js';
import {
  createTag,
  listTags,
  retireTag,
  tagVerification,
  untagVerification,
  updateTag,
  type TaggingInput,
} from '../services/catalog/index.js';
import { requirePermission, svc } from '../http/auth.js';
import { presentList } from './presenters.js';
import { presentTag, presentTagReferenceList, presentTagRemoval } from './tag.presenter.js';
import { createTagBody, listTagsQuery, taggingBody, updateTagBody } from './tags.schema.js';
import { pageParams, parseInput } from './validate.js';

/** The body of POST …/tags: `tags` and/or `names`, at least one of the two. */
export function parseTagging(body: unknown): TaggingInput {
  const input = parseInput(taggingBody, body);
  if (input.tags === undefined && input.names === undefined) throw parameterMissing('tags');
  return { tagIds: input.tags, names: input.names };
}

/** /v1/tags and the tags of a verification. */
export function tagsRouter(): Router {
  const router = new Router();

  router.get('/v1/tags', requirePermission('verification:read'), async (ctx) => {
    const query = parseInput(listTagsQuery, ctx.query);
    ctx.body = presentList(await listTags(svc(ctx), pageParams(query)), (tag) => presentTag(tag));
  });

  router.post('/v1/tags', requirePermission('verification:create'), async (ctx) => {
    const body = parseInput(createTagBody, ctx.request.body);
    const { tag, created } = await createTag(svc(ctx), body);
    ctx.status = created ? 201 : 200;
    ctx.body = presentTag(tag);
  });

  router.patch('/v1/tags/:id', requirePermission('verification:create'), async (ctx) => {
    const body = parseInput(updateTagBody, ctx.request.body);
    if (body.name === undefined && body.color === undefined && body.description === undefined)
      throw parameterMissing('name');
    ctx.body = presentTag(await updateTag(svc(ctx), ctx.params.id, body));
  });

  router.delete('/v1/tags/:id', requirePermission('verification:create'), async (ctx) => {
    ctx.body = presentTag(await retireTag(svc(ctx), ctx.params.id), { retired: true });
  });

  router.post('/v1/verifications/:id/tags', requirePermission('verification:create'), async (ctx) => {
    const input = parseTagging(ctx.request.body);
    ctx.body = presentTagReferenceList(await tagVerification(svc(ctx), ctx.params.id, input));
  });

  router.delete('/v1/verifications/:id/tags/:tagId', requirePermission('verification:create'), async (ctx) => {
    await untagVerification(svc(ctx), ctx.params.id, ctx.params.tagId);
    ctx.body = presentTagRemoval(ctx.params.tagId);
  });

  return router;
}
