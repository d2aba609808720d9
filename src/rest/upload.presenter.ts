import type { Upload } from '../entities/upload.entity.js';
import type { CreatedUpload } from '../services/verifications/index.js';
import type { UploadOut, UploadUrlOut } from '../contracts/index.js';

/** The Upload URL of the create response: where to PUT the bytes, and for how long. */
export function presentUploadUrl(created: CreatedUpload): UploadUrlOut {
  return {
    object: 'upload_url',
    upload_id: created.upload.id,
    key: created.upload.storageKey,
    upload_url: created.uploadUrl,
    expires_in: created.expiresIn,
  };
}

/** An Upload (`object` = `upload`). */
export function presentUpload(upload: Upload): UploadOut {
  return {
    object: 'upload',
    upload_id: upload.id,
    kind: upload.kind,
    side: upload.side ?? null,
    document_type: upload.documentType ?? null,
    status: upload.status,
    created_at: upload.createdAt.toISOString(),
  };
}
