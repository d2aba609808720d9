import { z } from 'zod';
import { DOCUMENT_TYPES } from '../services/catalog/index.js';
import { UPLOAD_KINDS, UPLOAD_SIDES } from '../services/verifications/index.js';

/** Request shapes of /v1/verifications/{id}/uploads; one `/** *\/` line per field. */

export const createUploadBody = z.strictObject({
  /** `document`, `selfie` or `video`; documents get `doc_` ids, the others `bio_`. */
  kind: z.enum(UPLOAD_KINDS),
  /** The Content-Type the client will PUT with; one of the supported types (else UNSUPPORTED_CONTENT_TYPE). */
  content_type: z.string().min(1).max(100),
  /** `front` or `back`; documents only (default `front`). */
  side: z.enum(UPLOAD_SIDES).optional(),
  /** passport, id_card, driving_licence or residence_permit; documents only, checked against the flow's accepted_document_types. */
  document_type: z.enum(DOCUMENT_TYPES).optional(),
});

export type CreateUploadBody = z.output<typeof createUploadBody>;

/** Complete takes no body; any field sent is PARAMETER_UNKNOWN. */
export const completeUploadBody = z.strictObject({});
