import Router from '@koa/router';
import type { Mode } from '../config.js';
import { notFound } from '../errors.js';
import { createApiKey, listApiKeys, revokeApiKey } from '../services/access/index.js';
import { requirePermission, svc } from '../http/auth.js';
import { presentApiKey, presentList } from './presenters.js';
import { createApiKeyBody } from './schemas.js';
import { listQuery, pageParams, parseInput, UUID_RE } from './validate.js';

export const listApiKeysQuery = listQuery(UUID_RE);

/** /v1/api-keys: list, mint (secret shown once), revoke. */
export function apiKeysRouter(): Router {
  const router = new Router();

  router.get('/v1/api-keys', requirePermission('settings:read'), async (ctx) => {
    const query = parseInput(listApiKeysQuery, ctx.query);
    ctx.body = presentList(await listApiKeys(svc(ctx), pageParams(query)), (key) => presentApiKey(key));
  });

  router.post('/v1/api-keys', requirePermission('settings:write'), async (ctx) => {
    const body = parseInput(createApiKeyBody, ctx.request.body);
    const { key, secretKey } = await createApiKey(svc(ctx), {
      name: body.name,
      environment: body.environment as Mode,
      permissions: body.permissions,
      access: body.access,
      expiresAt: body.expires_at ? new Date(body.expires_at) : null,
    });
    ctx.status = 201;
    ctx.body = presentApiKey(key, secretKey);
  });

  router.delete('/v1/api-keys/:id', requirePermission('settings:write'), async (ctx) => {
    if (!UUID_RE.test(ctx.params.id)) throw notFound('api_key', ctx.params.id);
    ctx.body = presentApiKey(await revokeApiKey(svc(ctx), ctx.params.id));
  });

  return router;
}
