import Router from '@koa/router';
import { completeUpload, createUpload } from '../services/verifications/index.js';
import { requirePermission, svc } from '../http/auth.js';
import { presentUpload, presentUploadUrl } from './upload.presenter.js';
import { completeUploadBody, createUploadBody } from './uploads.schema.js';
import { parseInput } from './validate.js';

/** /v1/verifications/{id}/uploads: presign a PUT straight to storage, then complete it. */
export function uploadsRouter(): Router {
  const router = new Router();

  router.post(
    '/v1/verifications/:id/uploads',
    requirePermission('verification:create', { write: true }),
    async (ctx) => {
      const body = parseInput(createUploadBody, ctx.request.body);
      const created = await createUpload(svc(ctx), ctx.params.id, {
        kind: body.kind,
        contentType: body.content_type,
        side: body.side,
        documentType: body.document_type,
      });
      ctx.status = 201;
      ctx.body = presentUploadUrl(created);
    },
  );

  router.post(
    '/v1/verifications/:id/uploads/:uploadId/complete',
    requirePermission('verification:create', { write: true }),
    async (ctx) => {
      parseInput(completeUploadBody, ctx.request.body);
      const upload = await completeUpload(svc(ctx), ctx.params.id, ctx.params.uploadId);
      ctx.body = presentUpload(upload);
    },
  );

  return router;
}
