import { z } from 'zod';
import { VERIFICATION_STATUSES } from '../rest/verifications.schema.js';
import { mode, nullableTimestamp, timestamp, type Out } from './common.js';
import { tagRef } from './tag.js';

/** A verification, its checks and evidence, the batch lookup and reverification grants. */

export const check = z
  .object({
    id: z.string(),
    object: z.literal('check'),
    type: z.string(),
    status: z.string(),
    required: z.boolean(),
    verdict: z.string().nullable(),
    score: z.number().nullable(),
    provider_tier: z.string().nullable(),
    reason_codes: z.array(z.string()),
    findings: z.array(z.looseObject({ code: z.string() })).meta({
      description:
        'What the check found: AML hits (list, entry_id, score), fraud-network signals; never applicant identity.',
    }),
    created_at: nullableTimestamp,
    updated_at: nullableTimestamp,
  })
  .meta({ id: 'Check' });

export const evidence = z
  .object({
    id: z.string(),
    object: z.literal('evidence'),
    kind: z.string(),
    side: z.string().nullable(),
    url: z.string().meta({ description: 'A presigned download URL.' }),
    url_expires_in: z.number().int().meta({ description: 'Seconds the URL stays valid.' }),
    mrz_valid: z.boolean().nullable(),
    barcode_consistent: z.boolean().nullable(),
    country: z.string().nullable(),
    captured_at: nullableTimestamp,
  })
  .meta({ id: 'Evidence' });

const applicantData = z.object({
  object: z.literal('applicant_data'),
  version: z.number().int(),
  fields: z.record(z.string(), z.string()).nullable(),
});

const verificationFields = {
  id: z.string(),
  object: z.literal('verification'),
  status: z.enum(VERIFICATION_STATUSES),
  mode,
  flow: z.string().meta({ description: 'The id of the flow the session runs.' }),
  verdict: z.string().nullable(),
  score: z.number().nullable(),
  reason_codes: z.array(z.string()),
  change_reason: z.string().nullable(),
  checks: z.array(check),
  tags: z.array(tagRef),
  identity_version: z.number().int(),
  identity_edited_at: nullableTimestamp,
  applicant: applicantData.optional().meta({ description: 'Only with include=applicant (needs applicant:read).' }),
  evidence: z.array(evidence).optional().meta({ description: 'Only with include=evidence.' }),
  client_token: z
    .string()
    .nullable()
    .meta({ description: 'Only in the create answer (and its idempotent replay); null elsewhere.' }),
  hosted_verify_url: z.string(),
  locale: z.string(),
  metadata: z.record(z.string(), z.string()),
  consent: z.object({ version: z.string(), language: z.string(), given_at: z.string() }).nullable().meta({
    description:
      "The applicant's consent recorded by the hosted page before any capture; null until given (and when declined). Uploads through the key API rest on the integrator's own consent.",
  }),
  return_url: z
    .string()
    .nullable()
    .meta({ description: "Where the hosted page's end screen sends the applicant back to, as the key set it." }),
  expires_at: nullableTimestamp,
  created_at: nullableTimestamp,
  updated_at: nullableTimestamp,
};

export const verification = z.object(verificationFields).meta({ id: 'Verification' });

export const consoleVerification = z
  .object({
    ...verificationFields,
    decided_by: z
      .object({ type: z.enum(['member', 'api_key']), id: z.string() })
      .nullable()
      .meta({ description: 'The reviewer or key that decided; null for the engine or a policy.' }),
  })
  .meta({ id: 'ConsoleVerification' });

const lookupLatest = z.object({
  id: z.string(),
  status: z.string(),
  verdict: z.string().nullable(),
  score: z.number().nullable(),
  reason_codes: z.array(z.string()),
  flow: z.string(),
  mode,
  created_at: nullableTimestamp,
  updated_at: nullableTimestamp,
  expires_at: nullableTimestamp,
});

export const lookupRow = z.object({
  object: z.literal('verification_lookup'),
  email: z.string().meta({ description: 'The input, echoed verbatim.' }),
  found: z.boolean(),
  attempts: z.number().int(),
  ever_approved: z.boolean(),
  first_attempt_at: nullableTimestamp,
  latest: lookupLatest.nullable(),
});

export const lookupList = z
  .object({ object: z.literal('list'), mode, data: z.array(lookupRow) })
  .meta({ id: 'VerificationLookupList' });

export const reverificationGrant = z
  .object({
    id: z.string(),
    object: z.literal('reverification_grant'),
    verification: z.string(),
    mode,
    reason: z.string(),
    note: z.string().nullable(),
    expires_at: timestamp,
  })
  .meta({ id: 'ReverificationGrant' });

export const reverificationRevoked = z
  .object({
    id: z.string(),
    object: z.literal('reverification_grant'),
    verification: z.string(),
    revoked: z.literal(true),
  })
  .meta({ id: 'ReverificationGrantRevoked' });

export const revealedIdentity = z
  .object({
    object: z.literal('applicant_data'),
    verification_id: z.string(),
    version: z.number().int(),
    fields: z.record(z.string(), z.string()).nullable(),
  })
  .meta({ id: 'RevealedIdentity' });

export const identityEdit = z
  .object({
    object: z.literal('identity_edit'),
    verification_id: z.string(),
    version: z.number().int(),
    changed_fields: z.array(z.string()),
    identity_edited_at: z.string(),
  })
  .meta({ id: 'IdentityEdit' });

export const evidenceList = z
  .object({ object: z.literal('list'), data: z.array(evidence), has_more: z.boolean() })
  .meta({ id: 'EvidenceList' });

export type CheckOut = Out<typeof check>;
export type EvidenceOut = Out<typeof evidence>;
export type VerificationOut = Out<typeof verification>;
export type ConsoleVerificationOut = Out<typeof consoleVerification>;
export type LookupRowOut = Out<typeof lookupRow>;
export type LookupListOut = Out<typeof lookupList>;
export type ReverificationGrantOut = Out<typeof reverificationGrant>;
export type ReverificationRevokedOut = Out<typeof reverificationRevoked>;
export type RevealedIdentityOut = Out<typeof revealedIdentity>;
export type IdentityEditOut = Out<typeof identityEdit>;
export type EvidenceListOut = Out<typeof evidenceList>;
