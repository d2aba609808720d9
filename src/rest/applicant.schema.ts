import { z } from 'zod';
import { DOCUMENT_TYPES } from '../services/catalog/index.js';
import { UPLOAD_KINDS, UPLOAD_SIDES } from '../services/verifications/index.js';

/** Request shapes of the hosted page's applicant API (/v1/hosted/...); one `/** *\/` line per field. */

export const hostedUploadBody = z.strictObject({
  /** `document`, `selfie` or `video` (the liveness clip). */
  kind: z.enum(UPLOAD_KINDS),
  /** The Content-Type the page will PUT with; one of the supported types (else UNSUPPORTED_CONTENT_TYPE). */
  content_type: z.string().min(1).max(100),
  /** `front` or `back`; documents only. */
  side: z.enum(UPLOAD_SIDES).optional(),
  /** The document type the applicant chose; refused with DOCUMENT_TYPE_NOT_ACCEPTED when the flow does not accept it. */
  document_type: z.enum(DOCUMENT_TYPES).optional(),
  /** A frame of the session's liveness challenge (selfie only): the step it was captured for, 0 = face the camera (see POST .../liveness/challenge). */
  challenge_step: z.number().int().min(0).max(9).optional(),
});

export const hostedEmailBody = z.strictObject({
  /** The applicant's address; a six-digit code is sent to it. */
  email: z.email().max(254),
});

export const hostedCodeBody = z.strictObject({
  /** The six-digit code from the email. */
  code: z.string().regex(/^\d{6}$/, 'must be the six digits from the email'),
});

/** Complete and submit take no body; any field sent is PARAMETER_UNKNOWN. */
export const hostedEmptyBody = z.strictObject({});

/** POST /v1/verifications/{id}/client_token takes no body. */
export const renewTokenBody = z.strictObject({});
