import Router from '@koa/router';
import { parameterMissing } from '../errors.js';
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  listWebhookDeliveries,
  listWebhookEndpoints,
  rotateWebhookSecret,
  sendTestWebhook,
  updateWebhookEndpoint,
} from '../services/webhooks/index.js';
import { requirePermission, svc } from '../http/auth.js';
import { presentList } from './presenters.js';
import { presentWebhookDelivery, presentWebhookEndpoint, presentWebhookEndpointDeletion } from './webhook.presenter.js';
import {
  createWebhookBody,
  listDeliveriesQuery,
  listWebhooksQuery,
  rotateSecretBody,
  testWebhookBody,
  updateWebhookBody,
} from './webhooks.schema.js';
import { pageParams, parseInput } from './validate.js';

/** /v1/webhooks: endpoint management, secret rotation, test events and the delivery log. */
export function webhooksRouter(): Router {
  const router = new Router();
  const manage = requirePermission('webhook:manage');

  router.get('/v1/webhooks', manage, async (ctx) => {
    const query = parseInput(listWebhooksQuery, ctx.query);
    ctx.body = presentList(await listWebhookEndpoints(svc(ctx), pageParams(query)), (e) => presentWebhookEndpoint(e));
  });

  router.post('/v1/webhooks', manage, async (ctx) => {
    const body = parseInput(createWebhookBody, ctx.request.body);
    const { endpoint, signingSecret } = await createWebhookEndpoint(svc(ctx), { ...body, apiKeyIds: body.api_key_ids });
    ctx.status = 201;
    ctx.body = presentWebhookEndpoint(endpoint, signingSecret);
  });

  router.patch('/v1/webhooks/:id', manage, async (ctx) => {
    const body = parseInput(updateWebhookBody, ctx.request.body);
    if (Object.keys(body).length === 0) throw parameterMissing('url');
    ctx.body = presentWebhookEndpoint(
      await updateWebhookEndpoint(svc(ctx), ctx.params.id, { ...body, apiKeyIds: body.api_key_ids }),
    );
  });

  router.delete('/v1/webhooks/:id', manage, async (ctx) => {
    ctx.body = presentWebhookEndpointDeletion((await deleteWebhookEndpoint(svc(ctx), ctx.params.id)).id);
  });

  router.post('/v1/webhooks/:id/rotate_secret', manage, async (ctx) => {
    parseInput(rotateSecretBody, ctx.request.body ?? {});
    const { endpoint, signingSecret } = await rotateWebhookSecret(svc(ctx), ctx.params.id);
    ctx.body = presentWebhookEndpoint(endpoint, signingSecret);
  });

  router.post('/v1/webhooks/:id/test', manage, async (ctx) => {
    const body = parseInput(testWebhookBody, ctx.request.body);
    ctx.status = 202;
    ctx.body = presentWebhookDelivery(await sendTestWebhook(svc(ctx), ctx.params.id, body.event));
  });

  router.get('/v1/webhooks/:id/deliveries', manage, async (ctx) => {
    const query = parseInput(listDeliveriesQuery, ctx.query);
    ctx.body = presentList(await listWebhookDeliveries(svc(ctx), ctx.params.id, pageParams(query)), (d) =>
      presentWebhookDelivery(d, { attempts: true }),
    );
  });

  return router;
}
