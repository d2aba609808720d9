import Router from '@koa/router';
import type { Context } from 'koa';
import { requirePermission, svc } from '../http/auth.js';
import type { Runtime } from '../runtime.js';
import { bearerToken } from '../services/access/index.js';
import {
  completeHostedUpload,
  confirmEmailStep,
  declineConsent,
  giveConsent,
  handoffQr,
  issueLivenessChallenge,
  openApplicantSession,
  readHostedSession,
  renewClientToken,
  requestHostedUpload,
  startEmailStep,
  submitHostedSession,
  type ApplicantSession,
  type EmailStepAnswer,
  type HostedView,
  type LivenessChallengeAnswer,
} from '../services/hosted/index.js';
import {
  hostedCodeBody,
  hostedConsentBody,
  hostedEmailBody,
  hostedEmptyBody,
  hostedUploadBody,
  renewTokenBody,
} from './applicant.schema.js';
import type {
  ClientTokenOut,
  EmailStepOut,
  HandoffOut,
  HostedSessionOut,
  HostedUploadOut,
  HostedUploadUrlOut,
  LivenessChallengeOut,
} from '../contracts/index.js';
import { parseInput } from './validate.js';

/** The page's view of its session: steps, branding, language and progress; never identity or a verdict. */
export function presentHostedSession(view: HostedView): HostedSessionOut {
  return {
    object: 'hosted_session',
    id: view.id,
    state: view.state,
    preview: view.preview,
    // The service picks one of the page's languages and step kinds (pageLanguage, the flow's steps).
    language: view.language as HostedSessionOut['language'],
    expires_at: view.expiresAt.toISOString(),
    steps: view.steps as HostedSessionOut['steps'],
    liveness_mode: view.livenessMode,
    accepted_document_types: view.acceptedDocumentTypes,
    branding: view.branding,
    progress: view.progress,
    consent: { state: view.consent.state, version: view.consent.version, retention_days: view.consent.retentionDays },
    return_url: view.returnUrl,
  };
}

const presentEmailStep = (step: EmailStepAnswer): EmailStepOut => ({
  object: 'email_step',
  email_sent: step.email_sent,
  expires_in: step.expires_in,
  confirmed: step.confirmed,
  preview: step.preview,
});

const presentLivenessChallenge = (challenge: LivenessChallengeAnswer): LivenessChallengeOut => ({
  object: 'liveness_challenge',
  challenge_id: challenge.challenge_id,
  // newChallenge draws from the four prompts the contract names.
  steps: challenge.steps as LivenessChallengeOut['steps'],
  expires_in: challenge.expires_in,
  preview: challenge.preview,
});

/** The session the request's client token opens (Authorization: Bearer vct_...), or a 401. */
const applicant = (runtime: Runtime, ctx: Context): Promise<ApplicantSession> =>
  openApplicantSession(
    { runtime, requestId: ctx.state.requestId, log: ctx.state.log },
    ctx.params.id!,
    bearerToken(ctx.get('authorization')),
  );

/**
 * /v1/hosted/verifications/{id}/...: the applicant API behind the hosted page, authorised
 * by the session's client token only. It can read the session's steps, presign and complete
 * its uploads, run the email step and submit; nothing else.
 */
export function applicantRouter(runtime: Runtime): Router {
  const router = new Router();
  const base = '/v1/hosted/verifications/:id';

  router.get(base, async (ctx) => {
    ctx.body = presentHostedSession(await readHostedSession(await applicant(runtime, ctx)));
  });

  router.post(`${base}/consent`, async (ctx) => {
    const body = parseInput(hostedConsentBody, ctx.request.body);
    const session = await applicant(runtime, ctx);
    if (body.decision === 'agree') await giveConsent(session, body.version!);
    else await declineConsent(session);
    ctx.body = presentHostedSession(await readHostedSession(session));
  });

  router.get(`${base}/handoff`, async (ctx) => {
    const session = await applicant(runtime, ctx);
    ctx.body = {
      object: 'handoff',
      qr_svg: await handoffQr(session, bearerToken(ctx.get('authorization'))!),
    } satisfies HandoffOut;
  });

  router.post(`${base}/uploads`, async (ctx) => {
    const body = parseInput(hostedUploadBody, ctx.request.body);
    const created = await requestHostedUpload(await applicant(runtime, ctx), {
      kind: body.kind,
      contentType: body.content_type,
      side: body.side,
      documentType: body.document_type,
      challengeStep: body.challenge_step,
    });
    ctx.status = 201;
    ctx.body = {
      object: 'hosted_upload_url',
      upload_id: created.uploadId,
      upload_url: created.uploadUrl,
      expires_in: created.expiresIn,
      preview: created.preview,
    } satisfies HostedUploadUrlOut;
  });

  router.post(`${base}/uploads/:uploadId/complete`, async (ctx) => {
    parseInput(hostedEmptyBody, ctx.request.body);
    const done = await completeHostedUpload(await applicant(runtime, ctx), ctx.params.uploadId!);
    ctx.body = {
      object: 'hosted_upload',
      upload_id: done.uploadId,
      kind: done.kind,
      side: done.side,
      status: done.status,
    } satisfies HostedUploadOut;
  });

  router.post(`${base}/email`, async (ctx) => {
    const body = parseInput(hostedEmailBody, ctx.request.body);
    ctx.body = presentEmailStep(await startEmailStep(await applicant(runtime, ctx), body.email));
  });

  router.post(`${base}/email/confirm`, async (ctx) => {
    const body = parseInput(hostedCodeBody, ctx.request.body);
    ctx.body = presentEmailStep(await confirmEmailStep(await applicant(runtime, ctx), body.code));
  });

  router.post(`${base}/liveness/challenge`, async (ctx) => {
    parseInput(hostedEmptyBody, ctx.request.body);
    ctx.status = 201;
    ctx.body = presentLivenessChallenge(await issueLivenessChallenge(await applicant(runtime, ctx)));
  });

  router.post(`${base}/submit`, async (ctx) => {
    parseInput(hostedEmptyBody, ctx.request.body);
    ctx.body = presentHostedSession(await submitHostedSession(await applicant(runtime, ctx)));
  });

  return router;
}

/** POST /v1/verifications/{id}/client_token: the integrator renews the applicant's link while the session is pending. */
export function clientTokenRouter(): Router {
  const router = new Router();
  router.post(
    '/v1/verifications/:id/client_token',
    requirePermission('verification:create', { write: true }),
    async (ctx) => {
      parseInput(renewTokenBody, ctx.request.body);
      const { verification, clientToken } = await renewClientToken(svc(ctx), ctx.params.id!);
      const base = `${svc(ctx).runtime.config.publicUrl}/verify/${verification.id}`;
      ctx.body = {
        object: 'client_token',
        verification: verification.id,
        client_token: clientToken,
        hosted_verify_url: `${base}#token=${clientToken}`,
        expires_at: verification.expiresAt.toISOString(),
      } satisfies ClientTokenOut;
    },
  );
  return router;
}
