import { z } from 'zod';
import { timestamp, type Out } from './common.js';

/** Answers of the hosted page's applicant API and of client-token renewal. */

export const clientToken = z
  .object({
    object: z.literal('client_token'),
    verification: z.string(),
    client_token: z.string(),
    hosted_verify_url: z.string(),
    expires_at: timestamp,
  })
  .meta({ id: 'ClientToken' });

export const hostedSession = z
  .object({
    object: z.literal('hosted_session'),
    id: z.string(),
    state: z.enum(['open', 'submitted', 'expired', 'declined']).meta({
      description:
        'open: capture goes on; submitted: the checks run or ran (no verdict shown); expired; declined: the applicant declined consent (the session expires as usual).',
    }),
    preview: z.boolean(),
    language: z.enum(['en', 'de', 'fr', 'es']),
    expires_at: timestamp,
    steps: z.array(z.enum(['email', 'document', 'selfie', 'liveness'])),
    liveness_mode: z.enum(['active', 'passive']).nullable().meta({
      description:
        'How the liveness step runs: `active` (the default: the prompts of POST .../liveness/challenge) or `passive` (a short clip); null without a liveness step.',
    }),
    accepted_document_types: z.array(z.string()),
    branding: z.object({
      brand_name: z.string().nullable(),
      logo_url: z.string().nullable(),
      accent_color: z.string().nullable(),
      support_url: z.string().nullable(),
      privacy_url: z.string().nullable(),
    }),
    progress: z.object({
      email_confirmed: z.boolean(),
      document_type: z.string().nullable(),
      document_front: z.boolean(),
      document_back: z.boolean(),
      selfie: z.boolean(),
      liveness: z.boolean(),
    }),
    consent: z
      .object({
        state: z.enum(['required', 'given', 'declined']),
        version: z.string(),
        retention_days: z.number().int(),
      })
      .meta({
        description:
          'Consent comes before any capture: uploads and submit answer 409 CONSENT_REQUIRED until it is given.',
      }),
    return_url: z
      .string()
      .nullable()
      .meta({ description: "The key's return_url: the end screen's way back; the page follows no other." }),
  })
  .meta({ id: 'HostedSession' });

export const hostedUploadUrl = z
  .object({
    object: z.literal('hosted_upload_url'),
    upload_id: z.string(),
    upload_url: z.string().nullable(),
    expires_in: z.number().int(),
    preview: z.boolean(),
  })
  .meta({ id: 'HostedUploadUrl' });

export const hostedUpload = z
  .object({
    object: z.literal('hosted_upload'),
    upload_id: z.string(),
    kind: z.string(),
    side: z.string().nullable(),
    status: z.literal('uploaded'),
  })
  .meta({ id: 'HostedUpload' });

export const handoff = z
  .object({
    object: z.literal('handoff'),
    qr_svg: z
      .string()
      .meta({ description: "An SVG QR code of this session's link (with its token), for a phone to continue on" }),
  })
  .meta({ id: 'Handoff' });

export const emailStep = z
  .object({
    object: z.literal('email_step'),
    email_sent: z.boolean(),
    expires_in: z.number().int(),
    confirmed: z.boolean(),
    preview: z.boolean(),
  })
  .meta({ id: 'EmailStep' });

export const livenessChallenge = z
  .object({
    object: z.literal('liveness_challenge'),
    challenge_id: z.string(),
    steps: z.array(z.enum(['face_camera', 'turn_left', 'turn_right', 'blink'])),
    expires_in: z.number().int(),
    preview: z.boolean(),
  })
  .meta({ id: 'LivenessChallenge', description: 'The active liveness challenge the page asks the applicant for.' });

export type ClientTokenOut = Out<typeof clientToken>;
export type HostedSessionOut = Out<typeof hostedSession>;
export type HostedUploadUrlOut = Out<typeof hostedUploadUrl>;
export type HostedUploadOut = Out<typeof hostedUpload>;
export type HandoffOut = Out<typeof handoff>;
export type EmailStepOut = Out<typeof emailStep>;
export type LivenessChallengeOut = Out<typeof livenessChallenge>;
