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

export const hostedConsentBody = z
  .strictObject({
    /** `agree` records consent {version, language, given_at}; `decline` ends the applicant's part (the session expires with CONSENT_DECLINED). */
    decision: z.enum(['agree', 'decline']),
    /** The version of the consent text the page showed (the session's `consent.version`); required with `agree`. */
    version: z.string().min(1).max(40).optional(),
  })
  .refine((body) => body.decision !== 'agree' || body.version !== undefined, {
    message: 'version is required with decision agree',
    path: ['version'],
  });

/** Complete and submit take no body; any field sent is PARAMETER_UNKNOWN. */
export const hostedEmptyBody = z.strictObject({});

/** POST /v1/verifications/{id}/client_token takes no body. */
export const renewTokenBody = z.strictObject({});
