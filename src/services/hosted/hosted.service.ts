import { randomBytes } from 'node:crypto';
import QRCode from 'qrcode';
import { ApiError, invalidRequest, parameterInvalid } from '../../errors.js';
import type { UploadKind } from '../../entities/upload.entity.js';
import type { Verification } from '../../entities/verification.entity.js';
import {
  completeUpload,
  createUpload,
  runAfterCommit,
  startProcessing,
  type AfterCommit,
  type UploadSide,
} from '../verifications/index.js';
import { challengeForFrame } from './liveness-step.js';
import {
  brandingOf,
  identityOf,
  livenessModeOf,
  loadSession,
  pageLanguage,
  progressOf,
  requireOpen,
  stateOf,
  stepsOf,
  type ApplicantSession,
  type Branding,
  type HostedState,
  type Progress,
} from './applicant-session.js';
import { consentViewOf, requireConsent, type ConsentView } from './consent.js';

/** What the page reads to draw itself: steps, branding, language, progress; never identity or verdict. */
export interface HostedView {
  id: string;
  state: HostedState;
  preview: boolean;
  language: string;
  expiresAt: Date;
  steps: string[];
  /** The liveness step's `mode` (`active`: the challenge's prompts), null without one. */
  livenessMode: 'active' | 'passive' | null;
  acceptedDocumentTypes: string[];
  branding: Branding;
  progress: Progress;
  consent: ConsentView;
  /** The key's return_url for the end screen; the page follows no other. */
  returnUrl: string | null;
}

export async function readHostedSession(session: ApplicantSession): Promise<HostedView> {
  const { ctx } = session;
  const v = await loadSession(ctx.em, session.verificationId, { identity: true });
  return {
    id: v.id,
    state: stateOf(v),
    preview: v.isPreview,
    language: pageLanguage(v.locale),
    expiresAt: v.expiresAt,
    steps: stepsOf(v),
    livenessMode: livenessModeOf(v),
    acceptedDocumentTypes: [...v.flowSnapshot.acceptedDocumentTypes],
    branding: await brandingOf(ctx, v),
    progress: await progressOf(ctx, v),
    consent: await consentViewOf(ctx, v),
    returnUrl: v.returnUrl ?? null,
  };
}

export interface HostedUploadInput {
  kind: UploadKind;
  contentType: string;
  side?: UploadSide;
  documentType?: string;
  /** A frame of the session's liveness challenge, for this step (selfie only). */
  challengeStep?: number;
}

/** An upload URL for the page; a preview gets none (nothing is stored for a preview). */
export interface HostedUploadUrl {
  uploadId: string;
  uploadUrl: string | null;
  expiresIn: number;
  preview: boolean;
}

const previewUploadId = (kind: UploadKind) =>
  `${kind === 'document' ? 'doc' : 'bio'}_preview${randomBytes(6).toString('hex')}`;

/**
 * Presigns the applicant's PUT with the same service as the key API (content type, kind,
 * side and the flow's accepted document types are checked there). A preview validates the
 * same way and then stores nothing.
 */
export async function requestHostedUpload(
  session: ApplicantSession,
  input: HostedUploadInput,
): Promise<HostedUploadUrl> {
  const { ctx } = session;
  const v = await loadSession(ctx.em, session.verificationId);
  requireOpen(v);
  requireConsent(v);
  if (v.isPreview) {
    refusePreviewInput(v, input);
    return { uploadId: previewUploadId(input.kind), uploadUrl: null, expiresIn: 0, preview: true };
  }
  const { challengeStep, ...upload } = input;
  let challenge: { id: string; step: number } | undefined;
  if (challengeStep !== undefined) {
    if (input.kind !== 'selfie')
      throw parameterInvalid('challenge_step', 'challenge_step is accepted only when kind is selfie.');
    const withIdentity = await loadSession(ctx.em, session.verificationId, { identity: true });
    challenge = {
      id: challengeForFrame(session, identityOf(ctx, withIdentity), challengeStep).id,
      step: challengeStep,
    };
  }
  const created = await createUpload(ctx, v.id, { ...upload, challenge });
  return { uploadId: created.upload.id, uploadUrl: created.uploadUrl, expiresIn: created.expiresIn, preview: false };
}

/** A preview answers the same refusals a real session would, without writing. */
function refusePreviewInput(v: Verification, input: HostedUploadInput): void {
  const supported = [
    'image/jpeg',
    'image/jpg',
    'image/png',
    'image/webp',
    'image/heic',
    'image/heif',
    'application/pdf',
    'video/mp4',
    'video/webm',
    'video/quicktime',
  ];
  if (!supported.includes(input.contentType.trim().toLowerCase())) {
    throw invalidRequest('UNSUPPORTED_CONTENT_TYPE', `Unsupported content_type '${input.contentType}'.`, {
      param: 'content_type',
    });
  }
  const accepted = v.flowSnapshot.acceptedDocumentTypes;
  if (input.documentType && accepted.length > 0 && !accepted.includes(input.documentType)) {
    throw invalidRequest('DOCUMENT_TYPE_NOT_ACCEPTED', `This flow does not accept ${input.documentType}.`, {
      param: 'document_type',
    });
  }
}

export interface HostedUploadDone {
  uploadId: string;
  kind: string;
  side: string | null;
  status: 'uploaded';
}

/**
 * Completes an upload through the verifications service (stored object, size and sniffed
 * type are checked there) without starting the checks: the applicant's submit does that.
 */
export async function completeHostedUpload(session: ApplicantSession, uploadId: string): Promise<HostedUploadDone> {
  const { ctx } = session;
  const v = await loadSession(ctx.em, session.verificationId);
  requireOpen(v);
  requireConsent(v);
  if (v.isPreview) {
    if (!/^(doc|bio)_preview[0-9a-f]{12}$/.test(uploadId))
      throw invalidRequest('UPLOAD_NOT_RECEIVED', 'No such preview upload.');
    return { uploadId, kind: uploadId.startsWith('doc_') ? 'document' : 'selfie', side: null, status: 'uploaded' };
  }
  const upload = await completeUpload(ctx, v.id, uploadId, { startProcessing: false });
  return { uploadId: upload.id, kind: upload.kind, side: upload.side ?? null, status: 'uploaded' };
}

/** The steps still missing before submit; a passport has no back. */
function missingSteps(steps: string[], progress: Progress): string[] {
  const missing: string[] = [];
  if (steps.includes('email') && !progress.email_confirmed) missing.push('email');
  if (steps.includes('document')) {
    if (!progress.document_front) missing.push('document_front');
    else if (progress.document_type !== 'passport' && !progress.document_back) missing.push('document_back');
  }
  if (steps.includes('selfie') && !progress.selfie) missing.push('selfie');
  if (steps.includes('liveness') && !progress.liveness) missing.push('liveness');
  return missing;
}

/**
 * The applicant's submit: every step done, the session moves pending -> processing and
 * writes verification.awaiting_service, and the checks are queued (decisions.md). A preview
 * checks the same and writes nothing. The token is spent: it can only read the state now.
 */
export async function submitHostedSession(session: ApplicantSession): Promise<HostedView> {
  const { ctx } = session;
  const after: AfterCommit = [];
  await ctx.em.transactional(async (em) => {
    const v = await loadSession(em, session.verificationId, { lock: true, identity: true });
    requireOpen(v);
    requireConsent(v);
    const progress = await progressOf({ ...ctx, em } as never, v);
    const missing = v.isPreview ? [] : missingSteps(stepsOf(v), progress);
    if (missing.length > 0) {
      throw new ApiError(
        400,
        'invalid_request_error',
        'STEPS_INCOMPLETE',
        `Finish these steps first: ${missing.join(', ')}.`,
        { detail: { missing } },
      );
    }
    if (!v.isPreview) startProcessing(em, ctx.runtime, v, after);
  });
  await runAfterCommit(after).catch((error) =>
    ctx.log.error({ err: error }, `queueing the checks of ${session.verificationId} failed; the sweep re-queues them`),
  );
  const view = await readHostedSession(session);
  // A preview ends on the result screen too, though its session stays as it was.
  return view.preview ? { ...view, state: 'submitted' } : view;
}

/**
 * The QR code a desktop without a camera shows so a phone continues the same session: this
 * session's link with the caller's own token in the fragment (the token the request carries,
 * so it hands over nothing the page does not hold already). Drawn here, so the page ships no
 * QR library and loads nothing from elsewhere.
 */
export async function handoffQr(session: ApplicantSession, token: string): Promise<string> {
  const { ctx } = session;
  const v = await loadSession(ctx.em, session.verificationId);
  requireOpen(v);
  const link = `${ctx.runtime.config.publicUrl}/verify/${v.id}#token=${token}`;
  return QRCode.toString(link, {
    type: 'svg',
    errorCorrectionLevel: 'M',
    margin: 2,
    color: { dark: '#000000', light: '#ffffff' },
  });
}
