import { z } from 'zod';
import { VERIFICATION_STATUSES } from '../verifications.schema.js';

/**
 * The `/v1` answers as zod schemas, for the OpenAPI document only (the presenters build the
 * JSON; the test helper validates every answer the suite receives against these, so a
 * presenter and its schema cannot drift apart unnoticed). Each `.meta({ id })` becomes a
 * component. Objects are closed (`additionalProperties: false`): a field a presenter adds
 * must be documented here.
 */

const timestamp = z.iso.datetime({ offset: true });
const nullableTimestamp = timestamp.nullable();
const mode = z.enum(['sandbox', 'live']);

export const errorEnvelope = z
  .object({
    error: z.object({
      /** invalid_request_error, authentication_error, permission_error, not_found_error, rate_limit_error, api_error. */
      type: z.string(),
      /** Machine-readable code, e.g. PARAMETER_INVALID. */
      code: z.string(),
      message: z.string(),
      /** The offending parameter, as a dotted path. */
      param: z.string().optional(),
      request_id: z.string(),
      /** Code-specific details (e.g. ALREADY_VERIFIED names the matching verification). */
      detail: z.record(z.string(), z.unknown()).optional(),
    }),
  })
  .meta({ id: 'ErrorEnvelope', description: "Every failure: the spec's error envelope." });

/** A page of `item` in the list envelope. */
export const listOf = (item: z.ZodType, id: string) =>
  z
    .object({
      object: z.literal('list'),
      data: z.array(item),
      has_more: z.boolean(),
      next_cursor: z.string().nullable(),
    })
    .meta({ id });

export const merchant = z
  .object({
    id: z.string(),
    object: z.literal('merchant'),
    name: z.string(),
    slug: z.string(),
    status: z.string(),
    tier: z.string(),
    created_at: nullableTimestamp,
  })
  .meta({ id: 'Merchant' });

export const entitlements = z
  .object({
    object: z.literal('entitlements'),
    mode,
    tier: z.string(),
    environment: mode,
    access: z.enum(['read_write', 'read_only']),
    permissions: z.array(z.string()),
  })
  .meta({ id: 'Entitlements' });

export const apiKey = z
  .object({
    id: z.string(),
    object: z.literal('api_key'),
    name: z.string(),
    environment: mode,
    status: z.string(),
    key_prefix: z.string(),
    permissions: z.array(z.string()),
    access: z.enum(['read_write', 'read_only']),
    created_at: nullableTimestamp,
    last_used_at: nullableTimestamp,
    expires_at: nullableTimestamp,
    revoked_at: nullableTimestamp,
    /** Only in the create answer, once. */
    secret_key: z.string().optional(),
  })
  .meta({ id: 'ApiKey' });

const tagRef = z.object({ id: z.string(), name: z.string(), color: z.string() }).meta({ id: 'TagReference' });

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
    /** What the check found: AML hits (list, entry_id, score), fraud-network signals; never applicant identity. */
    findings: z.array(z.looseObject({ code: z.string() })),
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
    url: z.string(),
    url_expires_in: z.number().int(),
    mrz_valid: z.boolean().nullable(),
    barcode_consistent: z.boolean().nullable(),
    country: z.string().nullable(),
    captured_at: nullableTimestamp,
  })
  .meta({ id: 'Evidence' });

export const verification = z
  .object({
    id: z.string(),
    object: z.literal('verification'),
    status: z.enum(VERIFICATION_STATUSES),
    mode,
    flow: z.string(),
    verdict: z.string().nullable(),
    score: z.number().nullable(),
    reason_codes: z.array(z.string()),
    change_reason: z.string().nullable(),
    checks: z.array(check),
    tags: z.array(tagRef),
    identity_version: z.number().int(),
    identity_edited_at: nullableTimestamp,
    /** Only with include=applicant (needs applicant:read). */
    applicant: z
      .object({
        object: z.literal('applicant_data'),
        version: z.number().int(),
        fields: z.record(z.string(), z.string()).nullable(),
      })
      .optional(),
    /** Only with include=evidence. */
    evidence: z.array(evidence).optional(),
    /** Only in the create answer (and its idempotent replay). */
    client_token: z.string().nullable(),
    hosted_verify_url: z.string(),
    locale: z.string(),
    metadata: z.record(z.string(), z.string()),
    /** The applicant's consent recorded by the hosted page before any capture; null until given (and when declined). Uploads through the key API rest on the integrator's own consent. */
    consent: z.object({ version: z.string(), language: z.string(), given_at: z.string() }).nullable(),
    /** Where the hosted page's end screen sends the applicant back to, as the key set it. */
    return_url: z.string().nullable(),
    expires_at: nullableTimestamp,
    created_at: nullableTimestamp,
    updated_at: nullableTimestamp,
  })
  .meta({ id: 'Verification' });

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

export const lookupList = z
  .object({
    object: z.literal('list'),
    mode,
    data: z.array(
      z.object({
        object: z.literal('verification_lookup'),
        /** The input, echoed verbatim. */
        email: z.string(),
        found: z.boolean(),
        attempts: z.number().int(),
        ever_approved: z.boolean(),
        first_attempt_at: nullableTimestamp,
        latest: lookupLatest.nullable(),
      }),
    ),
  })
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

export const manualReview = z
  .object({
    id: z.string(),
    object: z.literal('manual_review'),
    session_id: z.string(),
    status: z.string(),
    decision: z.string().nullable(),
    notes: z.string().nullable(),
    reviewed_at: nullableTimestamp,
    created_at: nullableTimestamp,
  })
  .meta({ id: 'ManualReview' });

export const uploadUrl = z
  .object({
    object: z.literal('upload_url'),
    upload_id: z.string(),
    key: z.string(),
    upload_url: z.string(),
    expires_in: z.number().int(),
  })
  .meta({ id: 'UploadUrl' });

export const upload = z
  .object({
    object: z.literal('upload'),
    upload_id: z.string(),
    kind: z.string(),
    side: z.string().nullable(),
    document_type: z.string().nullable(),
    status: z.string(),
    created_at: timestamp,
  })
  .meta({ id: 'Upload' });

/** Policies are documented with the request schemas (flows.schema.ts); here they are passed through. */
const policy = z.record(z.string(), z.unknown()).nullable();

export const flow = z
  .object({
    id: z.string(),
    object: z.literal('flow'),
    name: z.string(),
    steps: z.array(z.record(z.string(), z.unknown())),
    is_default: z.boolean(),
    status: z.string(),
    sensitivity: z.number().nullable(),
    brand_name: z.string().nullable(),
    logo_url: z.string().nullable(),
    accent_color: z.string().nullable(),
    support_url: z.string().nullable(),
    privacy_url: z.string().nullable(),
    languages: z.array(z.string()),
    default_email_locale: z.string().nullable(),
    country_policy: policy,
    network_policy: policy,
    expiry_policy: policy,
    policy_tree: policy,
    accepted_document_types: z.array(z.string()),
    repeat_policy: policy,
    version: z.number().int(),
    created_at: nullableTimestamp,
    updated_at: nullableTimestamp,
  })
  .meta({ id: 'Flow' });

export const flowDeleted = z
  .object({ id: z.string(), object: z.literal('flow'), deleted: z.literal(true) })
  .meta({ id: 'FlowDeleted' });

export const flowPreview = z
  .object({
    object: z.literal('flow_preview'),
    id: z.string(),
    flow: z.string(),
    mode,
    url: z.string(),
    client_token: z.string(),
    expires_at: nullableTimestamp,
  })
  .meta({ id: 'FlowPreview' });

export const tag = z
  .object({
    id: z.string(),
    object: z.literal('tag'),
    name: z.string(),
    slug: z.string(),
    color: z.string(),
    description: z.string().nullable(),
    created_at: nullableTimestamp,
    updated_at: nullableTimestamp,
    /** Only in the DELETE answer. */
    retired: z.literal(true).optional(),
  })
  .meta({ id: 'Tag' });

export const tagReferenceList = listOf(tagRef, 'TagReferenceList');

export const tagRemoved = z
  .object({ id: z.string(), object: z.literal('tag'), removed: z.literal(true) })
  .meta({ id: 'TagRemoved' });

export const applicant = z
  .object({
    id: z.string(),
    object: z.literal('applicant'),
    has_identity_link: z.boolean(),
    created_at: nullableTimestamp,
    updated_at: nullableTimestamp,
  })
  .meta({ id: 'Applicant' });

export const usageSummary = z
  .object({
    object: z.literal('usage_summary'),
    since: nullableTimestamp,
    total: z.number().int(),
    billable: z.number().int(),
    by_check_type: z.array(z.object({ check_type: z.string(), count: z.number().int(), billable: z.number().int() })),
  })
  .meta({ id: 'UsageSummary' });

export const webhookEndpoint = z
  .object({
    id: z.string(),
    object: z.literal('webhook_endpoint'),
    url: z.string(),
    events: z.array(z.string()),
    status: z.string(),
    api_key_ids: z.array(z.string()),
    description: z.string().nullable(),
    environment: mode,
    created_at: timestamp,
    /** Only when created and when rotated, once. */
    signing_secret: z.string().optional(),
  })
  .meta({ id: 'WebhookEndpoint' });

export const webhookEndpointDeleted = z
  .object({ id: z.string(), object: z.literal('webhook_endpoint'), deleted: z.literal(true) })
  .meta({ id: 'WebhookEndpointDeleted' });

export const webhookDelivery = z
  .object({
    id: z.string(),
    object: z.literal('webhook_delivery'),
    endpoint_id: z.string(),
    event: z.string(),
    /** What receivers see as `webhook-id`: their idempotency key. */
    event_id: z.string(),
    test: z.boolean(),
    status: z.string(),
    created_at: timestamp,
    /** The delivery log (GET .../deliveries) adds the attempts. */
    attempt_count: z.number().int().optional(),
    next_attempt_at: nullableTimestamp.optional(),
    attempts: z.array(z.record(z.string(), z.unknown())).optional(),
  })
  .meta({ id: 'WebhookDelivery' });

export const consoleSession = z
  .object({ object: z.literal('console_session'), token: z.string(), expires_at: timestamp })
  .meta({ id: 'ConsoleSession' });

export const consoleSessionDeleted = z
  .object({ object: z.literal('console_session'), deleted: z.literal(true) })
  .meta({ id: 'ConsoleSessionDeleted' });

export const accountSettings = z
  .object({
    object: z.literal('account_settings'),
    repeat_verification: z.record(z.string(), z.unknown()),
    reverification_period_days: z.number().int().nullable(),
    retention_days: z.unknown(),
    review_policy: z.unknown(),
    version: z.number().int(),
    updated_at: timestamp,
  })
  .meta({ id: 'AccountSettings' });

export const consoleReview = z
  .object({
    id: z.string(),
    object: z.literal('manual_review'),
    session_id: z.string(),
    status: z.string(),
    decision: z.string().nullable(),
    notes: z.string().nullable(),
    reviewed_at: nullableTimestamp,
    created_at: nullableTimestamp,
    mode: z.enum(['sandbox', 'live']),
    claimed_by: z
      .string()
      .nullable()
      .meta({ description: 'The member holding a live claim; null when none or lapsed.' }),
    claim_expires_at: nullableTimestamp,
    assigned_to: z.string().nullable(),
    escalation: z
      .object({
        reason: z.string(),
        recommendation: z.enum(['approve', 'reject', 'none']),
        assessment: z.record(z.string(), z.enum(['pass', 'fail', 'unsure'])),
        escalated_by: z.string(),
        escalated_at: z.string(),
        returned_by: z.string().nullable(),
        return_note: z.string().nullable(),
      })
      .nullable(),
    raised_by_member_id: z
      .string()
      .nullable()
      .optional()
      .meta({ description: 'Escalation return only: who raised the escalation.' }),
    being_reviewed_by: z
      .array(z.object({ member_id: z.string(), name: z.string(), since: z.string() }))
      .meta({ description: 'Live presence markers (advisory).' }),
  })
  .meta({ id: 'ConsoleReview' });

export const reviewPolicy = z
  .object({
    object: z.literal('review_policy'),
    claim_required: z.boolean(),
    claim_lease_minutes: z.number().int(),
    presence_ttl_ms: z.number().int(),
    presence_heartbeat_ms: z.number().int(),
  })
  .meta({ id: 'ReviewPolicy' });

export const reviewLock = z
  .object({ object: z.literal('review_lock'), member_id: z.string(), expires_at: z.string() })
  .meta({ id: 'ReviewLock' });
export const reviewLockDeleted = z
  .object({ object: z.literal('review_lock'), deleted: z.literal(true) })
  .meta({ id: 'ReviewLockDeleted' });

export const consoleVerification = verification
  .extend({
    mode: z.enum(['sandbox', 'live']),
    decided_by: z
      .object({ type: z.enum(['member', 'api_key']), id: z.string() })
      .nullable()
      .meta({ description: 'The reviewer or key that decided; null for the engine or a policy.' }),
  })
  .meta({ id: 'ConsoleVerification' });

export const revealedIdentity = z
  .object({
    object: z.literal('applicant_data'),
    verification_id: z.string(),
    version: z.number().int(),
    fields: z.record(z.string(), z.string()).nullable(),
  })
  .meta({ id: 'RevealedIdentity' });

export const member = z
  .object({
    id: z.string(),
    object: z.literal('member'),
    email: z.string(),
    name: z.string(),
    permissions: z.array(z.string()),
    environments: z.array(z.enum(['sandbox', 'live'])),
    status: z.enum(['active', 'deactivated']),
    created_at: z.string(),
    deactivated_at: nullableTimestamp,
  })
  .meta({ id: 'Member' });

export const invitedMember = z.object({ member, password: z.string() }).meta({ id: 'InvitedMember' });

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

export const auditEvent = z
  .object({
    id: z.string(),
    object: z.literal('audit_event'),
    member_id: z.string(),
    action: z.string(),
    mode: z.enum(['sandbox', 'live']),
    verification_id: z.string().nullable(),
    field_names: z.array(z.string()).nullable(),
    image_count: z.number().int().nullable(),
    row_count: z.number().int().nullable(),
    created_at: z.string(),
  })
  .meta({ id: 'AuditEvent' });

export const activity = z
  .object({
    id: z.string(),
    object: z.literal('activity'),
    member_id: z.string().nullable(),
    action: z.string(),
    mode: z.enum(['sandbox', 'live']),
    target_type: z.string(),
    target_id: z.string(),
    surface: z.enum(['console', 'graphql', 'api', 'cli', 'hosted']),
    detail: z.record(z.string(), z.string()).nullable().meta({
      description:
        'What names the target besides its id: for an API key its `name` and `key_prefix` (never the secret).',
    }),
    created_at: z.string(),
  })
  .meta({ id: 'Activity' });
