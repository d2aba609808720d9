import Router from '@koa/router';
import { createFlow, deleteFlow, getFlow, listFlows, previewFlow, updateFlow } from '../services/catalog/index.js';
import { requirePermission, svc } from '../http/auth.js';
import { presentDeletedFlow, presentFlow, presentFlowPreview } from './flow.presenter.js';
import { createFlowBody, listFlowsQuery, previewFlowBody, toFlowFields, updateFlowBody } from './flows.schema.js';
import { presentList } from './presenters.js';
import { pageParams, parseInput } from './validate.js';

/** /v1/flows: list, create, read, update (versioned), soft delete, sandbox preview. */
export function flowsRouter(): Router {
  const router = new Router();

  router.get('/v1/flows', requirePermission('settings:read'), async (ctx) => {
    const query = parseInput(listFlowsQuery, ctx.query);
    ctx.body = presentList(await listFlows(svc(ctx), pageParams(query)), presentFlow);
  });

  router.post('/v1/flows', requirePermission('settings:write'), async (ctx) => {
    const body = parseInput(createFlowBody, ctx.request.body);
    const flow = await createFlow(svc(ctx), { ...toFlowFields(body), name: body.name as string });
    ctx.status = 201;
    ctx.body = presentFlow(flow);
  });

  router.get('/v1/flows/:id', requirePermission('settings:read'), async (ctx) => {
    ctx.body = presentFlow(await getFlow(svc(ctx), ctx.params.id));
  });

  router.post('/v1/flows/:id', requirePermission('settings:write'), async (ctx) => {
    const body = parseInput(updateFlowBody, ctx.request.body);
    ctx.body = presentFlow(
      await updateFlow(svc(ctx), ctx.params.id, { ...toFlowFields(body), version: body.version as number | undefined }),
    );
  });

  router.delete('/v1/flows/:id', requirePermission('settings:write'), async (ctx) => {
    ctx.body = presentDeletedFlow(await deleteFlow(svc(ctx), ctx.params.id));
  });

  router.post('/v1/flows/:id/preview', requirePermission('verification:create'), async (ctx) => {
    parseInput(previewFlowBody, ctx.request.body);
    ctx.body = presentFlowPreview(await previewFlow(svc(ctx), ctx.params.id));
  });

  return router;
}
