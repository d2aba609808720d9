/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { DocumentTypeDecoration } from '@graphql-typed-document-node/core';
/** Who settled the outcome. */
export type ChangeReason =
  | 'auto_policy'
  | 'engine'
  | 'reviewer';

export type CreateApiKeyInput = {
  access?: KeyAccess | null | undefined;
  environment: Environment;
  expiresAt?: string | null | undefined;
  name: string;
  /** Omitted: the default set of the environment. */
  permissions?: Array<string> | null | undefined;
};

export type CreateFlowInput = {
  accentColor?: string | null | undefined;
  acceptedDocumentTypes?: Array<string> | null | undefined;
  brandName?: string | null | undefined;
  countryPolicy?: Record<string, unknown> | null | undefined;
  defaultEmailLocale?: string | null | undefined;
  expiryPolicy?: Record<string, unknown> | null | undefined;
  /** The previous default of the environment loses the mark. */
  isDefault?: boolean | null | undefined;
  languages?: Array<string> | null | undefined;
  logoUrl?: string | null | undefined;
  name: string;
  networkPolicy?: Record<string, unknown> | null | undefined;
  policyTree?: Record<string, unknown> | null | undefined;
  /** The privacy notice linked from the hosted consent step (https). */
  privacyUrl?: string | null | undefined;
  repeatPolicy?: Record<string, unknown> | null | undefined;
  sensitivity?: number | null | undefined;
  status?: FlowStatus | null | undefined;
  /** Replaced wholesale on update. */
  steps?: Array<FlowStepInput> | null | undefined;
  supportUrl?: string | null | undefined;
};

/** sandbox (test keys) or live */
export type Environment =
  | 'live'
  | 'sandbox';

/** An archived flow starts no new verification. */
export type FlowStatus =
  | 'active'
  | 'archived';

export type FlowStepInput = {
  config?: Record<string, unknown> | null | undefined;
  /** Default true. */
  required?: boolean | null | undefined;
  sensitivity?: number | null | undefined;
  threshold?: number | null | undefined;
  type: string;
};

/** read_only keys are refused on every write */
export type KeyAccess =
  | 'read_only'
  | 'read_write';

/** same_flow: an approval refuses repeats on its own flow only; any: on every flow (R1). */
export type RepeatScope =
  | 'any'
  | 'same_flow';

export type RepeatVerificationInput = {
  enabled?: boolean | null | undefined;
  scope?: RepeatScope | null | undefined;
};

/** What a reporting answer covers; every field optional. */
export type ReportingFilter = {
  /** One environment the seat holds; omitted: every one it holds; one it lacks: empty figures. */
  environment?: Environment | null | undefined;
  /** Only verifications that ran this flow. */
  flowId?: string | number | null | undefined;
  /** Lower bound on creation time. Omitted: everything (analytics: 30 days ago). */
  since?: string | null | undefined;
  /** Only verifications carrying this tag. */
  tagId?: string | number | null | undefined;
};

/** Every field narrows; omitted: no restriction. */
export type RequestLogFilter = {
  /** An API key id (UUID). */
  apiKeyId?: string | number | null | undefined;
  environment?: Environment | null | undefined;
  /** A route prefix, e.g. /v1/verifications. */
  route?: string | null | undefined;
  since?: string | null | undefined;
  /** 2xx, 3xx, 4xx or 5xx. */
  statusClass?: string | null | undefined;
  until?: string | null | undefined;
};

export type ReviewPolicyInput = {
  claimLeaseMinutes?: number | null | undefined;
  claimRequired?: boolean | null | undefined;
  presenceHeartbeatMs?: number | null | undefined;
  presenceTtlMs?: number | null | undefined;
};

/** Tag colors; slate is the default. */
export type TagColor =
  | 'amber'
  | 'blue'
  | 'gray'
  | 'green'
  | 'indigo'
  | 'orange'
  | 'pink'
  | 'purple'
  | 'red'
  | 'slate'
  | 'teal'
  | 'yellow';

export type UpdateFlowInput = {
  accentColor?: string | null | undefined;
  acceptedDocumentTypes?: Array<string> | null | undefined;
  brandName?: string | null | undefined;
  countryPolicy?: Record<string, unknown> | null | undefined;
  defaultEmailLocale?: string | null | undefined;
  expiryPolicy?: Record<string, unknown> | null | undefined;
  /** The previous default of the environment loses the mark. */
  isDefault?: boolean | null | undefined;
  languages?: Array<string> | null | undefined;
  logoUrl?: string | null | undefined;
  name?: string | null | undefined;
  networkPolicy?: Record<string, unknown> | null | undefined;
  policyTree?: Record<string, unknown> | null | undefined;
  /** The privacy notice linked from the hosted consent step (https). */
  privacyUrl?: string | null | undefined;
  repeatPolicy?: Record<string, unknown> | null | undefined;
  sensitivity?: number | null | undefined;
  status?: FlowStatus | null | undefined;
  /** Replaced wholesale on update. */
  steps?: Array<FlowStepInput> | null | undefined;
  supportUrl?: string | null | undefined;
  /** The version read; another version applies nothing (STALE_VERSION). */
  version?: number | null | undefined;
};

/** Only what is sent changes; send reverificationPeriodDays: null to turn the period off. */
export type UpdateSettingsInput = {
  repeatVerification?: RepeatVerificationInput | null | undefined;
  retentionDays?: number | null | undefined;
  reverificationPeriodDays?: number | null | undefined;
  reviewPolicy?: ReviewPolicyInput | null | undefined;
  /** The version read; a stale one answers STALE_VERSION. */
  version?: number | null | undefined;
};

/** The outcome of a check or a verification; null until final. */
export type Verdict =
  | 'approve'
  | 'reject'
  | 'review';

export type VerificationFilterInput = {
  /** Created before this time. */
  createdBefore?: string | null | undefined;
  /** Created at or after this time. */
  createdFrom?: string | null | undefined;
  /** Exact match ignoring case and surrounding whitespace; at most 254 characters. */
  email?: string | null | undefined;
  /** Omitted: every environment the seat holds. */
  environment?: Environment | null | undefined;
  status?: VerificationStatus | null | undefined;
  /** Only verifications carrying this tag (tag_...). */
  tagId?: string | number | null | undefined;
};

/** Terminal: approved, rejected, manual_review (awaiting a human), expired. */
export type VerificationStatus =
  | 'approved'
  | 'expired'
  | 'manual_review'
  | 'pending'
  | 'processing'
  | 'rejected';

export type AuditQueryVariables = Exact<{
  verificationId?: string | number | null | undefined;
  memberId?: string | number | null | undefined;
  after?: string | null | undefined;
}>;


export type AuditQuery = { auditEvents: { nodes: Array<{ id: string, memberId: string, action: string, environment: Environment, verificationId: string | null, fieldNames: Array<string> | null, imageCount: number | null, rowCount: number | null, createdAt: string }>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } };

export type RequestLogsQueryVariables = Exact<{
  filter?: RequestLogFilter | null | undefined;
  after?: string | null | undefined;
}>;


export type RequestLogsQuery = { requestLogs: { nodes: Array<{ id: string, createdAt: string, method: string, route: string, status: number, durationMs: number, keyName: string, requestId: string, ip: string | null, environment: Environment }>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } };

export type DeliveryLogsQueryVariables = Exact<{
  status?: string | null | undefined;
  event?: string | null | undefined;
  after?: string | null | undefined;
}>;


export type DeliveryLogsQuery = { deliveryLogs: { nodes: Array<{ id: string, createdAt: string, event: string, status: string, attemptCount: number, responseCode: number | null, error: string | null, endpointId: string, environment: Environment, test: boolean }>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } };

export type DeliveryBodyQueryVariables = Exact<{
  id: string | number;
}>;


export type DeliveryBodyQuery = { deliveryLog: { id: string, body: Record<string, unknown> | null, attempts: Array<Record<string, unknown>> } };

export type ReplayDeliveryMutationVariables = Exact<{
  id: string | number;
}>;


export type ReplayDeliveryMutation = { replayDelivery: { id: string, status: string, nextAttemptAt: string | null } };

export type ReportingQueryVariables = Exact<{
  filter?: ReportingFilter | null | undefined;
  environment?: Environment | null | undefined;
  since?: string | null | undefined;
}>;


export type ReportingQuery = { reportingOverview: { total: number, awaitingReview: number, decidedByReviewer: number, automated: number, automationRate: number | null, byStatus: { approved: number, rejected: number, manualReview: number, pending: number, processing: number, expired: number } }, reportingAnalytics: { days: Array<{ day: string, total: number, automated: number, decidedByReviewer: number, awaitingReview: number, byStatus: { approved: number, rejected: number, manualReview: number, pending: number, processing: number, expired: number } }> }, decisionFunnel: { created: number, submitted: number, decided: number }, reasonCodeBreakdown: Array<{ reasonCode: string, count: number }>, timeToDecision: { engine: { count: number, p50Seconds: number | null, p90Seconds: number | null }, reviewer: { count: number, p50Seconds: number | null, p90Seconds: number | null } }, usageReport: { total: number, billable: number, byCheckType: Array<{ checkType: string, count: number, billable: number }> } };

export type ExportVerificationsMutationVariables = Exact<{
  environment?: Environment | null | undefined;
  since?: string | null | undefined;
  includeIdentity?: boolean | null | undefined;
}>;


export type ExportVerificationsMutation = { exportVerifications: { csv: string, filename: string, rows: number, truncated: boolean } };

export type ExportUsageMutationVariables = Exact<{
  environment?: Environment | null | undefined;
  since?: string | null | undefined;
}>;


export type ExportUsageMutation = { exportUsage: { csv: string, filename: string, rows: number, truncated: boolean } };

export type ReviewRowFragment = { id: string, status: string, environment: Environment, createdAt: string, claimExpiresAt: string | null, decision: string | null, claimedBy: { id: string, name: string } | null, assignedTo: { id: string, name: string } | null, beingReviewedBy: Array<{ since: string, member: { id: string, name: string } }>, escalation: { reason: string, recommendation: string, escalatedBy: string, escalatedAt: string, returnNote: string | null, returnedBy: string | null } | null, verification: { id: string, status: VerificationStatus, reasonCodes: Array<string>, score: number | null } | null };

export type ReviewQueueQueryVariables = Exact<{
  environment?: Environment | null | undefined;
  holdingMine?: boolean | null | undefined;
  after?: string | null | undefined;
}>;


export type ReviewQueueQuery = { reviews: { nodes: Array<{ id: string, status: string, environment: Environment, createdAt: string, claimExpiresAt: string | null, decision: string | null, claimedBy: { id: string, name: string } | null, assignedTo: { id: string, name: string } | null, beingReviewedBy: Array<{ since: string, member: { id: string, name: string } }>, escalation: { reason: string, recommendation: string, escalatedBy: string, escalatedAt: string, returnNote: string | null, returnedBy: string | null } | null, verification: { id: string, status: VerificationStatus, reasonCodes: Array<string>, score: number | null } | null }>, pageInfo: { hasNextPage: boolean, endCursor: string | null } }, reviewPolicy: { claimRequired: boolean, claimLeaseMinutes: number, presenceTtlMs: number, presenceHeartbeatMs: number } };

export type CaseMembersQueryVariables = Exact<{ [key: string]: never; }>;


export type CaseMembersQuery = { members: { nodes: Array<{ id: string, name: string, environments: Array<Environment>, deactivatedAt: string | null }> } };

export type VerificationDetailFragment = { id: string, status: VerificationStatus, verdict: Verdict | null, score: number | null, reasonCodes: Array<string>, mode: Environment, createdAt: string, updatedAt: string, expiresAt: string, locale: string, changeReason: ChangeReason | null, identityVersion: number, identityEditedAt: string | null, decidedBy: { id: string, type: string } | null, flow: { id: string, name: string } | null, tags: Array<{ id: string, name: string, color: TagColor }>, applicant: { id: string } | null, checks: Array<{ id: string, type: string, status: string, verdict: Verdict | null, score: number | null, reasonCodes: Array<string>, required: boolean, findings: Array<Record<string, unknown>>, providerTier: string }> };

export type VerificationQueryVariables = Exact<{
  id: string | number;
}>;


export type VerificationQuery = { verification: { id: string, status: VerificationStatus, verdict: Verdict | null, score: number | null, reasonCodes: Array<string>, mode: Environment, createdAt: string, updatedAt: string, expiresAt: string, locale: string, changeReason: ChangeReason | null, identityVersion: number, identityEditedAt: string | null, decidedBy: { id: string, type: string } | null, flow: { id: string, name: string } | null, tags: Array<{ id: string, name: string, color: TagColor }>, applicant: { id: string } | null, checks: Array<{ id: string, type: string, status: string, verdict: Verdict | null, score: number | null, reasonCodes: Array<string>, required: boolean, findings: Array<Record<string, unknown>>, providerTier: string }> } };

export type CaseTimelineQueryVariables = Exact<{
  verificationId: string | number;
  targetIds?: Array<string | number> | string | number | null | undefined;
}>;


export type CaseTimelineQuery = { verificationEvents: Array<{ id: string, type: string, createdAt: string }>, activity: { nodes: Array<{ id: string, memberId: string | null, action: string, targetType: string, surface: string, createdAt: string }> }, auditEvents: { nodes: Array<{ id: string, memberId: string, action: string, fieldNames: Array<string> | null, imageCount: number | null, createdAt: string }> } };

export type EvidenceQueryVariables = Exact<{
  verificationId: string | number;
}>;


export type EvidenceQuery = { evidence: Array<{ id: string, kind: string, side: string | null, url: string }> };

export type RevealIdentityQueryVariables = Exact<{
  verificationId: string | number;
}>;


export type RevealIdentityQuery = { revealIdentity: { verificationId: string, version: number, fields: Record<string, unknown> | null } };

export type EditIdentityMutationVariables = Exact<{
  verificationId: string | number;
  fields: Record<string, unknown>;
  version: number;
}>;


export type EditIdentityMutation = { editIdentity: { version: number, changedFields: Array<string> } };

export type ClaimReviewMutationVariables = Exact<{
  id: string | number;
}>;


export type ClaimReviewMutation = { claimReview: { id: string, status: string, environment: Environment, createdAt: string, claimExpiresAt: string | null, decision: string | null, claimedBy: { id: string, name: string } | null, assignedTo: { id: string, name: string } | null, beingReviewedBy: Array<{ since: string, member: { id: string, name: string } }>, escalation: { reason: string, recommendation: string, escalatedBy: string, escalatedAt: string, returnNote: string | null, returnedBy: string | null } | null, verification: { id: string, status: VerificationStatus, reasonCodes: Array<string>, score: number | null } | null } };

export type ReleaseReviewMutationVariables = Exact<{
  id: string | number;
}>;


export type ReleaseReviewMutation = { releaseReview: { id: string, status: string, environment: Environment, createdAt: string, claimExpiresAt: string | null, decision: string | null, claimedBy: { id: string, name: string } | null, assignedTo: { id: string, name: string } | null, beingReviewedBy: Array<{ since: string, member: { id: string, name: string } }>, escalation: { reason: string, recommendation: string, escalatedBy: string, escalatedAt: string, returnNote: string | null, returnedBy: string | null } | null, verification: { id: string, status: VerificationStatus, reasonCodes: Array<string>, score: number | null } | null } };

export type LockReviewMutationVariables = Exact<{
  id: string | number;
}>;


export type LockReviewMutation = { lockReview: { expiresAt: string } };

export type UnlockReviewMutationVariables = Exact<{
  id: string | number;
}>;


export type UnlockReviewMutation = { unlockReview: boolean };

export type DecideReviewMutationVariables = Exact<{
  id: string | number;
  decision: string;
  notes?: string | null | undefined;
  applicantMessage?: string | null | undefined;
}>;


export type DecideReviewMutation = { decideReview: { id: string, status: string, environment: Environment, createdAt: string, claimExpiresAt: string | null, decision: string | null, claimedBy: { id: string, name: string } | null, assignedTo: { id: string, name: string } | null, beingReviewedBy: Array<{ since: string, member: { id: string, name: string } }>, escalation: { reason: string, recommendation: string, escalatedBy: string, escalatedAt: string, returnNote: string | null, returnedBy: string | null } | null, verification: { id: string, status: VerificationStatus, reasonCodes: Array<string>, score: number | null } | null } };

export type EscalateReviewMutationVariables = Exact<{
  id: string | number;
  reason: string;
  recommendation?: string | null | undefined;
}>;


export type EscalateReviewMutation = { escalateReview: { id: string, status: string, environment: Environment, createdAt: string, claimExpiresAt: string | null, decision: string | null, claimedBy: { id: string, name: string } | null, assignedTo: { id: string, name: string } | null, beingReviewedBy: Array<{ since: string, member: { id: string, name: string } }>, escalation: { reason: string, recommendation: string, escalatedBy: string, escalatedAt: string, returnNote: string | null, returnedBy: string | null } | null, verification: { id: string, status: VerificationStatus, reasonCodes: Array<string>, score: number | null } | null } };

export type ReturnEscalationMutationVariables = Exact<{
  id: string | number;
  note?: string | null | undefined;
}>;


export type ReturnEscalationMutation = { returnEscalation: { review: { id: string, status: string, environment: Environment, createdAt: string, claimExpiresAt: string | null, decision: string | null, claimedBy: { id: string, name: string } | null, assignedTo: { id: string, name: string } | null, beingReviewedBy: Array<{ since: string, member: { id: string, name: string } }>, escalation: { reason: string, recommendation: string, escalatedBy: string, escalatedAt: string, returnNote: string | null, returnedBy: string | null } | null, verification: { id: string, status: VerificationStatus, reasonCodes: Array<string>, score: number | null } | null } } };

export type AssignReviewMutationVariables = Exact<{
  id: string | number;
  memberId?: string | number | null | undefined;
}>;


export type AssignReviewMutation = { assignReview: { id: string, status: string, environment: Environment, createdAt: string, claimExpiresAt: string | null, decision: string | null, claimedBy: { id: string, name: string } | null, assignedTo: { id: string, name: string } | null, beingReviewedBy: Array<{ since: string, member: { id: string, name: string } }>, escalation: { reason: string, recommendation: string, escalatedBy: string, escalatedAt: string, returnNote: string | null, returnedBy: string | null } | null, verification: { id: string, status: VerificationStatus, reasonCodes: Array<string>, score: number | null } | null } };

export type ReviewQueryVariables = Exact<{
  id: string | number;
}>;


export type ReviewQuery = { review: { notes: string | null, reviewedAt: string | null, id: string, status: string, environment: Environment, createdAt: string, claimExpiresAt: string | null, decision: string | null, escalation: { assessment: Record<string, unknown>, reason: string, recommendation: string, escalatedBy: string, escalatedAt: string, returnNote: string | null, returnedBy: string | null } | null, claimedBy: { id: string, name: string } | null, assignedTo: { id: string, name: string } | null, beingReviewedBy: Array<{ since: string, member: { id: string, name: string } }>, verification: { id: string, status: VerificationStatus, reasonCodes: Array<string>, score: number | null } | null }, reviewPolicy: { claimRequired: boolean, claimLeaseMinutes: number, presenceTtlMs: number, presenceHeartbeatMs: number } };

export type SignInMutationVariables = Exact<{
  email: string;
  password: string;
}>;


export type SignInMutation = { signIn: { token: string, expiresAt: string } };

export type SignOutMutationVariables = Exact<{ [key: string]: never; }>;


export type SignOutMutation = { signOut: boolean };

export type ViewerQueryVariables = Exact<{ [key: string]: never; }>;


export type ViewerQuery = { viewer: { environments: Array<Environment>, member: { id: string, name: string, email: string, permissions: Array<string>, environments: Array<Environment> }, merchant: { id: string, name: string } } };

export type SettingsQueryVariables = Exact<{
  environment?: Environment | null | undefined;
}>;


export type SettingsQuery = { settings: { version: number, retentionDays: number, reverificationPeriodDays: number | null, repeatVerification: { enabled: boolean, scope: RepeatScope }, reviewPolicy: { claimRequired: boolean, claimLeaseMinutes: number, presenceTtlMs: number, presenceHeartbeatMs: number } }, flows: { nodes: Array<{ id: string, name: string, status: FlowStatus, isDefault: boolean, isPreset: boolean, environment: Environment, version: number, acceptedDocumentTypes: Array<string>, brandName: string | null, accentColor: string | null, logoUrl: string | null, supportUrl: string | null, privacyUrl: string | null, steps: Array<{ type: string, required: boolean }> }> }, apiKeys: { nodes: Array<{ id: string, name: string, keyPrefix: string, environment: Environment, access: KeyAccess, status: string, createdAt: string, lastUsedAt: string | null, revokedAt: string | null }> } };

export type UpdateSettingsMutationVariables = Exact<{
  input: UpdateSettingsInput;
}>;


export type UpdateSettingsMutation = { updateSettings: { version: number, retentionDays: number, reverificationPeriodDays: number | null, repeatVerification: { enabled: boolean, scope: RepeatScope }, reviewPolicy: { claimRequired: boolean, claimLeaseMinutes: number, presenceTtlMs: number, presenceHeartbeatMs: number } } };

export type CreateApiKeyMutationVariables = Exact<{
  input: CreateApiKeyInput;
}>;


export type CreateApiKeyMutation = { createApiKey: { secretKey: string, apiKey: { id: string, name: string, keyPrefix: string } } };

export type RevokeApiKeyMutationVariables = Exact<{
  id: string | number;
}>;


export type RevokeApiKeyMutation = { revokeApiKey: { id: string, status: string, revokedAt: string | null } };

export type WebhookEndpointsQueryVariables = Exact<{
  environment?: Environment | null | undefined;
}>;


export type WebhookEndpointsQuery = { webhookEndpoints: { nodes: Array<{ id: string, url: string, events: Array<string>, status: string, description: string | null, environment: Environment, createdAt: string }> } };

export type CreateWebhookEndpointMutationVariables = Exact<{
  environment?: Environment | null | undefined;
  url: string;
  events: Array<string> | string;
  description?: string | null | undefined;
}>;


export type CreateWebhookEndpointMutation = { createWebhookEndpoint: { signingSecret: string, endpoint: { id: string, url: string } } };

export type RotateWebhookSecretMutationVariables = Exact<{
  id: string | number;
}>;


export type RotateWebhookSecretMutation = { rotateWebhookSecret: { signingSecret: string, endpoint: { id: string } } };

export type TestWebhookEndpointMutationVariables = Exact<{
  id: string | number;
}>;


export type TestWebhookEndpointMutation = { testWebhookEndpoint: { deliveryId: string, event: string, status: string } };

export type ConsoleFlowFragment = { id: string, name: string, status: FlowStatus, isDefault: boolean, isPreset: boolean, environment: Environment, version: number, acceptedDocumentTypes: Array<string>, brandName: string | null, accentColor: string | null, logoUrl: string | null, supportUrl: string | null, privacyUrl: string | null, steps: Array<{ type: string, required: boolean }> };

export type CreateFlowMutationVariables = Exact<{
  environment: Environment;
  input: CreateFlowInput;
}>;


export type CreateFlowMutation = { createFlow: { id: string, name: string, status: FlowStatus, isDefault: boolean, isPreset: boolean, environment: Environment, version: number, acceptedDocumentTypes: Array<string>, brandName: string | null, accentColor: string | null, logoUrl: string | null, supportUrl: string | null, privacyUrl: string | null, steps: Array<{ type: string, required: boolean }> } };

export type UpdateFlowMutationVariables = Exact<{
  id: string | number;
  input: UpdateFlowInput;
}>;


export type UpdateFlowMutation = { updateFlow: { id: string, name: string, status: FlowStatus, isDefault: boolean, isPreset: boolean, environment: Environment, version: number, acceptedDocumentTypes: Array<string>, brandName: string | null, accentColor: string | null, logoUrl: string | null, supportUrl: string | null, privacyUrl: string | null, steps: Array<{ type: string, required: boolean }> } };

export type ArchiveFlowMutationVariables = Exact<{
  id: string | number;
  version?: number | null | undefined;
}>;


export type ArchiveFlowMutation = { archiveFlow: { id: string, name: string, status: FlowStatus, isDefault: boolean, isPreset: boolean, environment: Environment, version: number, acceptedDocumentTypes: Array<string>, brandName: string | null, accentColor: string | null, logoUrl: string | null, supportUrl: string | null, privacyUrl: string | null, steps: Array<{ type: string, required: boolean }> } };

export type PreviewFlowMutationVariables = Exact<{
  id: string | number;
}>;


export type PreviewFlowMutation = { previewFlow: { id: string, url: string } };

export type TeamQueryVariables = Exact<{ [key: string]: never; }>;


export type TeamQuery = { members: { nodes: Array<{ id: string, name: string, email: string, permissions: Array<string>, environments: Array<Environment>, deactivatedAt: string | null, createdAt: string }> } };

export type InviteMemberMutationVariables = Exact<{
  email: string;
  name?: string | null | undefined;
  permissions?: Array<string> | string | null | undefined;
  environments: Array<Environment> | Environment;
}>;


export type InviteMemberMutation = { inviteMember: { password: string, member: { id: string, name: string, email: string } } };

export type UpdateMemberMutationVariables = Exact<{
  id: string | number;
  permissions?: Array<string> | string | null | undefined;
  environments?: Array<Environment> | Environment | null | undefined;
}>;


export type UpdateMemberMutation = { updateMember: { id: string, permissions: Array<string>, environments: Array<Environment> } };

export type DeactivateMemberMutationVariables = Exact<{
  id: string | number;
}>;


export type DeactivateMemberMutation = { deactivateMember: { id: string, deactivatedAt: string | null } };

export type VerificationsQueryVariables = Exact<{
  filter?: VerificationFilterInput | null | undefined;
  after?: string | null | undefined;
}>;


export type VerificationsQuery = { verifications: { nodes: Array<{ id: string, status: VerificationStatus, verdict: Verdict | null, score: number | null, mode: Environment, createdAt: string, reasonCodes: Array<string>, flow: { name: string } | null }>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } };

export class TypedDocumentString<TResult, TVariables>
  extends String
  implements DocumentTypeDecoration<TResult, TVariables>
{
  __apiType?: NonNullable<DocumentTypeDecoration<TResult, TVariables>['__apiType']>;
  private value: string;
  public __meta__?: Record<string, any> | undefined;

  constructor(value: string, __meta__?: Record<string, any> | undefined) {
    super(value);
    this.value = value;
    this.__meta__ = __meta__;
  }

  override toString(): string & DocumentTypeDecoration<TResult, TVariables> {
    return this.value;
  }
}
export const ReviewRowFragmentDoc = new TypedDocumentString(`
    fragment ReviewRow on Review {
  id
  status
  environment
  createdAt
  claimExpiresAt
  decision
  claimedBy {
    id
    name
  }
  assignedTo {
    id
    name
  }
  beingReviewedBy {
    member {
      id
      name
    }
    since
  }
  escalation {
    reason
    recommendation
    escalatedBy
    escalatedAt
    returnNote
    returnedBy
  }
  verification {
    id
    status
    reasonCodes
    score
  }
}
    `, {"fragmentName":"ReviewRow"}) as unknown as TypedDocumentString<ReviewRowFragment, unknown>;
export const VerificationDetailFragmentDoc = new TypedDocumentString(`
    fragment VerificationDetail on Verification {
  id
  status
  verdict
  score
  reasonCodes
  mode
  createdAt
  updatedAt
  expiresAt
  locale
  changeReason
  identityVersion
  identityEditedAt
  decidedBy {
    id
    type
  }
  flow {
    id
    name
  }
  tags {
    id
    name
    color
  }
  applicant {
    id
  }
  checks {
    id
    type
    status
    verdict
    score
    reasonCodes
    required
    findings
    providerTier
  }
}
    `, {"fragmentName":"VerificationDetail"}) as unknown as TypedDocumentString<VerificationDetailFragment, unknown>;
export const ConsoleFlowFragmentDoc = new TypedDocumentString(`
    fragment ConsoleFlow on Flow {
  id
  name
  status
  isDefault
  isPreset
  environment
  version
  steps {
    type
    required
  }
  acceptedDocumentTypes
  brandName
  accentColor
  logoUrl
  supportUrl
  privacyUrl
}
    `, {"fragmentName":"ConsoleFlow"}) as unknown as TypedDocumentString<ConsoleFlowFragment, unknown>;
export const AuditDocument = new TypedDocumentString(`
    query Audit($verificationId: ID, $memberId: ID, $after: String) {
  auditEvents(
    verificationId: $verificationId
    memberId: $memberId
    first: 50
    after: $after
  ) {
    nodes {
      id
      memberId
      action
      environment
      verificationId
      fieldNames
      imageCount
      rowCount
      createdAt
    }
    pageInfo {
      hasNextPage
      endCursor
    }
  }
}
    `) as unknown as TypedDocumentString<AuditQuery, AuditQueryVariables>;
export const RequestLogsDocument = new TypedDocumentString(`
    query RequestLogs($filter: RequestLogFilter, $after: String) {
  requestLogs(filter: $filter, first: 50, after: $after) {
    nodes {
      id
      createdAt
      method
      route
      status
      durationMs
      keyName
      requestId
      ip
      environment
    }
    pageInfo {
      hasNextPage
      endCursor
    }
  }
}
    `) as unknown as TypedDocumentString<RequestLogsQuery, RequestLogsQueryVariables>;
export const DeliveryLogsDocument = new TypedDocumentString(`
    query DeliveryLogs($status: String, $event: String, $after: String) {
  deliveryLogs(status: $status, event: $event, first: 50, after: $after) {
    nodes {
      id
      createdAt
      event
      status
      attemptCount
      responseCode
      error
      endpointId
      environment
      test
    }
    pageInfo {
      hasNextPage
      endCursor
    }
  }
}
    `) as unknown as TypedDocumentString<DeliveryLogsQuery, DeliveryLogsQueryVariables>;
export const DeliveryBodyDocument = new TypedDocumentString(`
    query DeliveryBody($id: ID!) {
  deliveryLog(id: $id) {
    id
    body
    attempts
  }
}
    `) as unknown as TypedDocumentString<DeliveryBodyQuery, DeliveryBodyQueryVariables>;
export const ReplayDeliveryDocument = new TypedDocumentString(`
    mutation ReplayDelivery($id: ID!) {
  replayDelivery(id: $id) {
    id
    status
    nextAttemptAt
  }
}
    `) as unknown as TypedDocumentString<ReplayDeliveryMutation, ReplayDeliveryMutationVariables>;
export const ReportingDocument = new TypedDocumentString(`
    query Reporting($filter: ReportingFilter, $environment: Environment, $since: DateTimeISO) {
  reportingOverview(filter: $filter) {
    total
    awaitingReview
    decidedByReviewer
    automated
    automationRate
    byStatus {
      approved
      rejected
      manualReview
      pending
      processing
      expired
    }
  }
  reportingAnalytics(filter: $filter) {
    days {
      day
      total
      automated
      decidedByReviewer
      awaitingReview
      byStatus {
        approved
        rejected
        manualReview
        pending
        processing
        expired
      }
    }
  }
  decisionFunnel(filter: $filter) {
    created
    submitted
    decided
  }
  reasonCodeBreakdown(filter: $filter) {
    reasonCode
    count
  }
  timeToDecision(filter: $filter) {
    engine {
      count
      p50Seconds
      p90Seconds
    }
    reviewer {
      count
      p50Seconds
      p90Seconds
    }
  }
  usageReport(environment: $environment, since: $since) {
    total
    billable
    byCheckType {
      checkType
      count
      billable
    }
  }
}
    `) as unknown as TypedDocumentString<ReportingQuery, ReportingQueryVariables>;
export const ExportVerificationsDocument = new TypedDocumentString(`
    mutation ExportVerifications($environment: Environment, $since: DateTimeISO, $includeIdentity: Boolean) {
  exportVerifications(
    environment: $environment
    since: $since
    includeIdentity: $includeIdentity
  ) {
    csv
    filename
    rows
    truncated
  }
}
    `) as unknown as TypedDocumentString<ExportVerificationsMutation, ExportVerificationsMutationVariables>;
export const ExportUsageDocument = new TypedDocumentString(`
    mutation ExportUsage($environment: Environment, $since: DateTimeISO) {
  exportUsage(environment: $environment, since: $since) {
    csv
    filename
    rows
    truncated
  }
}
    `) as unknown as TypedDocumentString<ExportUsageMutation, ExportUsageMutationVariables>;
export const ReviewQueueDocument = new TypedDocumentString(`
    query ReviewQueue($environment: Environment, $holdingMine: Boolean, $after: String) {
  reviews(
    environment: $environment
    holdingMine: $holdingMine
    first: 50
    after: $after
  ) {
    nodes {
      ...ReviewRow
    }
    pageInfo {
      hasNextPage
      endCursor
    }
  }
  reviewPolicy {
    claimRequired
    claimLeaseMinutes
    presenceTtlMs
    presenceHeartbeatMs
  }
}
    fragment ReviewRow on Review {
  id
  status
  environment
  createdAt
  claimExpiresAt
  decision
  claimedBy {
    id
    name
  }
  assignedTo {
    id
    name
  }
  beingReviewedBy {
    member {
      id
      name
    }
    since
  }
  escalation {
    reason
    recommendation
    escalatedBy
    escalatedAt
    returnNote
    returnedBy
  }
  verification {
    id
    status
    reasonCodes
    score
  }
}`) as unknown as TypedDocumentString<ReviewQueueQuery, ReviewQueueQueryVariables>;
export const CaseMembersDocument = new TypedDocumentString(`
    query CaseMembers {
  members(first: 100) {
    nodes {
      id
      name
      environments
      deactivatedAt
    }
  }
}
    `) as unknown as TypedDocumentString<CaseMembersQuery, CaseMembersQueryVariables>;
export const VerificationDocument = new TypedDocumentString(`
    query Verification($id: ID!) {
  verification(id: $id) {
    ...VerificationDetail
  }
}
    fragment VerificationDetail on Verification {
  id
  status
  verdict
  score
  reasonCodes
  mode
  createdAt
  updatedAt
  expiresAt
  locale
  changeReason
  identityVersion
  identityEditedAt
  decidedBy {
    id
    type
  }
  flow {
    id
    name
  }
  tags {
    id
    name
    color
  }
  applicant {
    id
  }
  checks {
    id
    type
    status
    verdict
    score
    reasonCodes
    required
    findings
    providerTier
  }
}`) as unknown as TypedDocumentString<VerificationQuery, VerificationQueryVariables>;
export const CaseTimelineDocument = new TypedDocumentString(`
    query CaseTimeline($verificationId: ID!, $targetIds: [ID!]) {
  verificationEvents(verificationId: $verificationId) {
    id
    type
    createdAt
  }
  activity(targetIds: $targetIds, first: 100) {
    nodes {
      id
      memberId
      action
      targetType
      surface
      createdAt
    }
  }
  auditEvents(verificationId: $verificationId, first: 100) {
    nodes {
      id
      memberId
      action
      fieldNames
      imageCount
      createdAt
    }
  }
}
    `) as unknown as TypedDocumentString<CaseTimelineQuery, CaseTimelineQueryVariables>;
export const EvidenceDocument = new TypedDocumentString(`
    query Evidence($verificationId: ID!) {
  evidence(verificationId: $verificationId) {
    id
    kind
    side
    url
  }
}
    `) as unknown as TypedDocumentString<EvidenceQuery, EvidenceQueryVariables>;
export const RevealIdentityDocument = new TypedDocumentString(`
    query RevealIdentity($verificationId: ID!) {
  revealIdentity(verificationId: $verificationId) {
    verificationId
    version
    fields
  }
}
    `) as unknown as TypedDocumentString<RevealIdentityQuery, RevealIdentityQueryVariables>;
export const EditIdentityDocument = new TypedDocumentString(`
    mutation EditIdentity($verificationId: ID!, $fields: JSONObject!, $version: Int!) {
  editIdentity(
    verificationId: $verificationId
    fields: $fields
    version: $version
  ) {
    version
    changedFields
  }
}
    `) as unknown as TypedDocumentString<EditIdentityMutation, EditIdentityMutationVariables>;
export const ClaimReviewDocument = new TypedDocumentString(`
    mutation ClaimReview($id: ID!) {
  claimReview(id: $id) {
    ...ReviewRow
  }
}
    fragment ReviewRow on Review {
  id
  status
  environment
  createdAt
  claimExpiresAt
  decision
  claimedBy {
    id
    name
  }
  assignedTo {
    id
    name
  }
  beingReviewedBy {
    member {
      id
      name
    }
    since
  }
  escalation {
    reason
    recommendation
    escalatedBy
    escalatedAt
    returnNote
    returnedBy
  }
  verification {
    id
    status
    reasonCodes
    score
  }
}`) as unknown as TypedDocumentString<ClaimReviewMutation, ClaimReviewMutationVariables>;
export const ReleaseReviewDocument = new TypedDocumentString(`
    mutation ReleaseReview($id: ID!) {
  releaseReview(id: $id) {
    ...ReviewRow
  }
}
    fragment ReviewRow on Review {
  id
  status
  environment
  createdAt
  claimExpiresAt
  decision
  claimedBy {
    id
    name
  }
  assignedTo {
    id
    name
  }
  beingReviewedBy {
    member {
      id
      name
    }
    since
  }
  escalation {
    reason
    recommendation
    escalatedBy
    escalatedAt
    returnNote
    returnedBy
  }
  verification {
    id
    status
    reasonCodes
    score
  }
}`) as unknown as TypedDocumentString<ReleaseReviewMutation, ReleaseReviewMutationVariables>;
export const LockReviewDocument = new TypedDocumentString(`
    mutation LockReview($id: ID!) {
  lockReview(id: $id) {
    expiresAt
  }
}
    `) as unknown as TypedDocumentString<LockReviewMutation, LockReviewMutationVariables>;
export const UnlockReviewDocument = new TypedDocumentString(`
    mutation UnlockReview($id: ID!) {
  unlockReview(id: $id)
}
    `) as unknown as TypedDocumentString<UnlockReviewMutation, UnlockReviewMutationVariables>;
export const DecideReviewDocument = new TypedDocumentString(`
    mutation DecideReview($id: ID!, $decision: String!, $notes: String, $applicantMessage: String) {
  decideReview(
    id: $id
    decision: $decision
    notes: $notes
    applicantMessage: $applicantMessage
  ) {
    ...ReviewRow
  }
}
    fragment ReviewRow on Review {
  id
  status
  environment
  createdAt
  claimExpiresAt
  decision
  claimedBy {
    id
    name
  }
  assignedTo {
    id
    name
  }
  beingReviewedBy {
    member {
      id
      name
    }
    since
  }
  escalation {
    reason
    recommendation
    escalatedBy
    escalatedAt
    returnNote
    returnedBy
  }
  verification {
    id
    status
    reasonCodes
    score
  }
}`) as unknown as TypedDocumentString<DecideReviewMutation, DecideReviewMutationVariables>;
export const EscalateReviewDocument = new TypedDocumentString(`
    mutation EscalateReview($id: ID!, $reason: String!, $recommendation: String) {
  escalateReview(id: $id, reason: $reason, recommendation: $recommendation) {
    ...ReviewRow
  }
}
    fragment ReviewRow on Review {
  id
  status
  environment
  createdAt
  claimExpiresAt
  decision
  claimedBy {
    id
    name
  }
  assignedTo {
    id
    name
  }
  beingReviewedBy {
    member {
      id
      name
    }
    since
  }
  escalation {
    reason
    recommendation
    escalatedBy
    escalatedAt
    returnNote
    returnedBy
  }
  verification {
    id
    status
    reasonCodes
    score
  }
}`) as unknown as TypedDocumentString<EscalateReviewMutation, EscalateReviewMutationVariables>;
export const ReturnEscalationDocument = new TypedDocumentString(`
    mutation ReturnEscalation($id: ID!, $note: String) {
  returnEscalation(id: $id, note: $note) {
    review {
      ...ReviewRow
    }
  }
}
    fragment ReviewRow on Review {
  id
  status
  environment
  createdAt
  claimExpiresAt
  decision
  claimedBy {
    id
    name
  }
  assignedTo {
    id
    name
  }
  beingReviewedBy {
    member {
      id
      name
    }
    since
  }
  escalation {
    reason
    recommendation
    escalatedBy
    escalatedAt
    returnNote
    returnedBy
  }
  verification {
    id
    status
    reasonCodes
    score
  }
}`) as unknown as TypedDocumentString<ReturnEscalationMutation, ReturnEscalationMutationVariables>;
export const AssignReviewDocument = new TypedDocumentString(`
    mutation AssignReview($id: ID!, $memberId: ID) {
  assignReview(id: $id, memberId: $memberId) {
    ...ReviewRow
  }
}
    fragment ReviewRow on Review {
  id
  status
  environment
  createdAt
  claimExpiresAt
  decision
  claimedBy {
    id
    name
  }
  assignedTo {
    id
    name
  }
  beingReviewedBy {
    member {
      id
      name
    }
    since
  }
  escalation {
    reason
    recommendation
    escalatedBy
    escalatedAt
    returnNote
    returnedBy
  }
  verification {
    id
    status
    reasonCodes
    score
  }
}`) as unknown as TypedDocumentString<AssignReviewMutation, AssignReviewMutationVariables>;
export const ReviewDocument = new TypedDocumentString(`
    query Review($id: ID!) {
  review(id: $id) {
    ...ReviewRow
    notes
    reviewedAt
    escalation {
      assessment
    }
  }
  reviewPolicy {
    claimRequired
    claimLeaseMinutes
    presenceTtlMs
    presenceHeartbeatMs
  }
}
    fragment ReviewRow on Review {
  id
  status
  environment
  createdAt
  claimExpiresAt
  decision
  claimedBy {
    id
    name
  }
  assignedTo {
    id
    name
  }
  beingReviewedBy {
    member {
      id
      name
    }
    since
  }
  escalation {
    reason
    recommendation
    escalatedBy
    escalatedAt
    returnNote
    returnedBy
  }
  verification {
    id
    status
    reasonCodes
    score
  }
}`) as unknown as TypedDocumentString<ReviewQuery, ReviewQueryVariables>;
export const SignInDocument = new TypedDocumentString(`
    mutation SignIn($email: String!, $password: String!) {
  signIn(email: $email, password: $password) {
    token
    expiresAt
  }
}
    `) as unknown as TypedDocumentString<SignInMutation, SignInMutationVariables>;
export const SignOutDocument = new TypedDocumentString(`
    mutation SignOut {
  signOut
}
    `) as unknown as TypedDocumentString<SignOutMutation, SignOutMutationVariables>;
export const ViewerDocument = new TypedDocumentString(`
    query Viewer {
  viewer {
    environments
    member {
      id
      name
      email
      permissions
      environments
    }
    merchant {
      id
      name
    }
  }
}
    `) as unknown as TypedDocumentString<ViewerQuery, ViewerQueryVariables>;
export const SettingsDocument = new TypedDocumentString(`
    query Settings($environment: Environment) {
  settings {
    version
    retentionDays
    reverificationPeriodDays
    repeatVerification {
      enabled
      scope
    }
    reviewPolicy {
      claimRequired
      claimLeaseMinutes
      presenceTtlMs
      presenceHeartbeatMs
    }
  }
  flows(environment: $environment, first: 50) {
    nodes {
      ...ConsoleFlow
    }
  }
  apiKeys(environment: $environment, first: 50) {
    nodes {
      id
      name
      keyPrefix
      environment
      access
      status
      createdAt
      lastUsedAt
      revokedAt
    }
  }
}
    fragment ConsoleFlow on Flow {
  id
  name
  status
  isDefault
  isPreset
  environment
  version
  steps {
    type
    required
  }
  acceptedDocumentTypes
  brandName
  accentColor
  logoUrl
  supportUrl
  privacyUrl
}`) as unknown as TypedDocumentString<SettingsQuery, SettingsQueryVariables>;
export const UpdateSettingsDocument = new TypedDocumentString(`
    mutation UpdateSettings($input: UpdateSettingsInput!) {
  updateSettings(input: $input) {
    version
    retentionDays
    reverificationPeriodDays
    repeatVerification {
      enabled
      scope
    }
    reviewPolicy {
      claimRequired
      claimLeaseMinutes
      presenceTtlMs
      presenceHeartbeatMs
    }
  }
}
    `) as unknown as TypedDocumentString<UpdateSettingsMutation, UpdateSettingsMutationVariables>;
export const CreateApiKeyDocument = new TypedDocumentString(`
    mutation CreateApiKey($input: CreateApiKeyInput!) {
  createApiKey(input: $input) {
    secretKey
    apiKey {
      id
      name
      keyPrefix
    }
  }
}
    `) as unknown as TypedDocumentString<CreateApiKeyMutation, CreateApiKeyMutationVariables>;
export const RevokeApiKeyDocument = new TypedDocumentString(`
    mutation RevokeApiKey($id: ID!) {
  revokeApiKey(id: $id) {
    id
    status
    revokedAt
  }
}
    `) as unknown as TypedDocumentString<RevokeApiKeyMutation, RevokeApiKeyMutationVariables>;
export const WebhookEndpointsDocument = new TypedDocumentString(`
    query WebhookEndpoints($environment: Environment) {
  webhookEndpoints(environment: $environment, first: 50) {
    nodes {
      id
      url
      events
      status
      description
      environment
      createdAt
    }
  }
}
    `) as unknown as TypedDocumentString<WebhookEndpointsQuery, WebhookEndpointsQueryVariables>;
export const CreateWebhookEndpointDocument = new TypedDocumentString(`
    mutation CreateWebhookEndpoint($environment: Environment, $url: String!, $events: [String!]!, $description: String) {
  createWebhookEndpoint(
    environment: $environment
    url: $url
    events: $events
    description: $description
  ) {
    signingSecret
    endpoint {
      id
      url
    }
  }
}
    `) as unknown as TypedDocumentString<CreateWebhookEndpointMutation, CreateWebhookEndpointMutationVariables>;
export const RotateWebhookSecretDocument = new TypedDocumentString(`
    mutation RotateWebhookSecret($id: ID!) {
  rotateWebhookSecret(id: $id) {
    signingSecret
    endpoint {
      id
    }
  }
}
    `) as unknown as TypedDocumentString<RotateWebhookSecretMutation, RotateWebhookSecretMutationVariables>;
export const TestWebhookEndpointDocument = new TypedDocumentString(`
    mutation TestWebhookEndpoint($id: ID!) {
  testWebhookEndpoint(id: $id) {
    deliveryId
    event
    status
  }
}
    `) as unknown as TypedDocumentString<TestWebhookEndpointMutation, TestWebhookEndpointMutationVariables>;
export const CreateFlowDocument = new TypedDocumentString(`
    mutation CreateFlow($environment: Environment!, $input: CreateFlowInput!) {
  createFlow(environment: $environment, input: $input) {
    ...ConsoleFlow
  }
}
    fragment ConsoleFlow on Flow {
  id
  name
  status
  isDefault
  isPreset
  environment
  version
  steps {
    type
    required
  }
  acceptedDocumentTypes
  brandName
  accentColor
  logoUrl
  supportUrl
  privacyUrl
}`) as unknown as TypedDocumentString<CreateFlowMutation, CreateFlowMutationVariables>;
export const UpdateFlowDocument = new TypedDocumentString(`
    mutation UpdateFlow($id: ID!, $input: UpdateFlowInput!) {
  updateFlow(id: $id, input: $input) {
    ...ConsoleFlow
  }
}
    fragment ConsoleFlow on Flow {
  id
  name
  status
  isDefault
  isPreset
  environment
  version
  steps {
    type
    required
  }
  acceptedDocumentTypes
  brandName
  accentColor
  logoUrl
  supportUrl
  privacyUrl
}`) as unknown as TypedDocumentString<UpdateFlowMutation, UpdateFlowMutationVariables>;
export const ArchiveFlowDocument = new TypedDocumentString(`
    mutation ArchiveFlow($id: ID!, $version: Int) {
  archiveFlow(id: $id, version: $version) {
    ...ConsoleFlow
  }
}
    fragment ConsoleFlow on Flow {
  id
  name
  status
  isDefault
  isPreset
  environment
  version
  steps {
    type
    required
  }
  acceptedDocumentTypes
  brandName
  accentColor
  logoUrl
  supportUrl
  privacyUrl
}`) as unknown as TypedDocumentString<ArchiveFlowMutation, ArchiveFlowMutationVariables>;
export const PreviewFlowDocument = new TypedDocumentString(`
    mutation PreviewFlow($id: ID!) {
  previewFlow(id: $id) {
    id
    url
  }
}
    `) as unknown as TypedDocumentString<PreviewFlowMutation, PreviewFlowMutationVariables>;
export const TeamDocument = new TypedDocumentString(`
    query Team {
  members(first: 100) {
    nodes {
      id
      name
      email
      permissions
      environments
      deactivatedAt
      createdAt
    }
  }
}
    `) as unknown as TypedDocumentString<TeamQuery, TeamQueryVariables>;
export const InviteMemberDocument = new TypedDocumentString(`
    mutation InviteMember($email: String!, $name: String, $permissions: [String!], $environments: [Environment!]!) {
  inviteMember(
    email: $email
    name: $name
    permissions: $permissions
    environments: $environments
  ) {
    password
    member {
      id
      name
      email
    }
  }
}
    `) as unknown as TypedDocumentString<InviteMemberMutation, InviteMemberMutationVariables>;
export const UpdateMemberDocument = new TypedDocumentString(`
    mutation UpdateMember($id: ID!, $permissions: [String!], $environments: [Environment!]) {
  updateMember(id: $id, permissions: $permissions, environments: $environments) {
    id
    permissions
    environments
  }
}
    `) as unknown as TypedDocumentString<UpdateMemberMutation, UpdateMemberMutationVariables>;
export const DeactivateMemberDocument = new TypedDocumentString(`
    mutation DeactivateMember($id: ID!) {
  deactivateMember(id: $id) {
    id
    deactivatedAt
  }
}
    `) as unknown as TypedDocumentString<DeactivateMemberMutation, DeactivateMemberMutationVariables>;
export const VerificationsDocument = new TypedDocumentString(`
    query Verifications($filter: VerificationFilterInput, $after: String) {
  verifications(filter: $filter, first: 50, after: $after) {
    nodes {
      id
      status
      verdict
      score
      mode
      createdAt
      reasonCodes
      flow {
        name
      }
    }
    pageInfo {
      hasNextPage
      endCursor
    }
  }
}
    `) as unknown as TypedDocumentString<VerificationsQuery, VerificationsQueryVariables>;