import { z } from 'zod';
import { listApiKeysQuery } from '../api-keys.router.js';
import { createFlowBody, listFlowsQuery, previewFlowBody, updateFlowBody } from '../flows.schema.js';
import { lookupBody } from '../lookup.router.js';
import { listActivityQuery, listAuditQuery, listConsoleVerificationsQuery } from '../console-verifications.router.js';
import {
  assignmentBody,
  consoleDecisionBody,
  emptyBody,
  escalationBody,
  escalationReturnBody,
  listConsoleReviewsQuery,
} from '../console-reviews.schema.js';
import { inviteMemberInput, updateMemberInput } from '../../services/access/index.js';
import { identityEditInput } from '../../services/verifications/index.js';
import { listMembersQuery } from '../console-members.router.js';
import { decisionBody, listManualReviewsQuery } from '../manual-reviews.schema.js';
import { grantBody } from '../reverification.router.js';
import { createApiKeyBody, signInBody } from '../schemas.js';
import {
  hostedCodeBody,
  hostedConsentBody,
  hostedEmailBody,
  hostedEmptyBody,
  hostedUploadBody,
  renewTokenBody,
} from '../applicant.schema.js';
import { patchSettingsBody } from '../settings.schema.js';
import {
  createTagBody,
  listApplicantsQuery,
  listTagsQuery,
  taggingBody,
  updateTagBody,
  usageQuery,
} from '../tags.schema.js';
import { completeUploadBody, createUploadBody } from '../uploads.schema.js';
import { getVerificationQuery, listVerificationsQuery } from '../verifications.router.js';
import { createVerificationBody } from '../verifications.schema.js';
import {
  createWebhookBody,
  listDeliveriesQuery,
  listWebhooksQuery,
  rotateSecretBody,
  testWebhookBody,
  updateWebhookBody,
} from '../webhooks.schema.js';
import * as r from '../../contracts/index.js';
import {
  exportUsageBody,
  exportVerificationsBody,
  listDeliveryLogQuery,
  listRequestLogsQuery,
  replayBody,
} from '../console-logs.schema.js';
import { analyticsQuery, consoleUsageQuery, listPersonsQuery, overviewQuery } from '../console-reporting.schema.js';

/** One documented route. `path` is written as the router writes it (`/v1/flows/:id`). */
export interface RouteDoc {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  path: string;
  summary: string;
  /** `key`: a secret key (Bearer sk_...); `member`: a console session (Bearer mst_...); `client`: a session's client token (Bearer vct_...); `none`. */
  auth: 'key' | 'member' | 'client' | 'none';
  /** The key scope the route requires (documented in the description). */
  permission?: string;
  query?: z.ZodObject;
  body?: z.ZodType;
  /** Success status, default 200. */
  status?: number;
  /** Other success statuses answering the same schema (POST /v1/tags: 200 for an existing tag). */
  alsoStatus?: number[];
  response: z.ZodType;
  /** Further documented error statuses besides 400/401/403/404 (and 429 for keys), e.g. 409. */
  errors?: number[];
  /** Request headers the route reads (e.g. Idempotency-Key). */
  headers?: z.ZodObject;
  /** The success answer's media type when it is not JSON (`text/csv` for exports). */
  contentType?: 'text/csv';
}

type Options = Omit<RouteDoc, 'method' | 'path' | 'summary' | 'auth' | 'response'>;
const key = (
  method: RouteDoc['method'],
  path: string,
  summary: string,
  response: z.ZodType,
  options: Options = {},
): RouteDoc => ({ method, path, summary, auth: 'key', response, ...options });
const member = (
  method: RouteDoc['method'],
  path: string,
  summary: string,
  response: z.ZodType,
  options: Options = {},
): RouteDoc => ({ method, path, summary, auth: 'member', response, ...options });

const client = (
  method: RouteDoc['method'],
  path: string,
  summary: string,
  response: z.ZodType,
  options: Options = {},
): RouteDoc => ({ method, path, summary, auth: 'client', response, ...options });

const idempotency = z.object({
  'idempotency-key': z
    .string()
    .max(255)
    .optional()
    .meta({ description: 'Replays the stored answer of an earlier call with the same key (24 h).' }),
});

/**
 * Every `/v1` route, one line each: adding a route to a router means adding its line here
 * (the suite fails on any answer from an undocumented route). Key routes first, then the
 * console (team member) routes.
 */
export const ROUTES: RouteDoc[] = [
  key('get', '/v1/merchant', 'The calling account', r.merchant, { permission: 'settings:read' }),
  key('get', '/v1/entitlements', 'What the calling key may do', r.entitlements, { permission: 'settings:read' }),
  key('get', '/v1/api-keys', 'List API keys', r.listOf(r.apiKey, 'ApiKeyList'), {
    permission: 'settings:read',
    query: listApiKeysQuery,
  }),
  key('post', '/v1/api-keys', 'Create an API key (the secret is shown once)', r.apiKey, {
    permission: 'settings:write',
    body: createApiKeyBody,
    status: 201,
  }),
  key('delete', '/v1/api-keys/:id', 'Revoke an API key', r.apiKey, { permission: 'settings:write' }),
  key('post', '/v1/verifications/lookup', 'Batch lookup by email (1 to 1,000 addresses)', r.lookupList, {
    permission: 'verification:read',
    body: lookupBody,
    errors: [503],
  }),
  key('post', '/v1/verifications', 'Create a verification session', r.verification, {
    permission: 'verification:create',
    body: createVerificationBody,
    status: 201,
    errors: [409],
    headers: idempotency,
  }),
  key('get', '/v1/verifications', 'List verifications', r.listOf(r.verification, 'VerificationList'), {
    permission: 'verification:read',
    query: listVerificationsQuery,
  }),
  key('get', '/v1/verifications/:id', 'Read a verification (include=applicant,documents)', r.verification, {
    permission: 'verification:read',
    query: getVerificationQuery,
  }),
  key('post', '/v1/verifications/:id/reverification', 'Grant a reverification', r.reverificationGrant, {
    permission: 'verification:create',
    body: grantBody,
    errors: [409],
  }),
  key(
    'delete',
    '/v1/verifications/:id/reverification',
    'Withdraw an open reverification grant',
    r.reverificationRevoked,
    { permission: 'verification:create', errors: [409] },
  ),
  key('post', '/v1/verifications/:id/uploads', 'Create a presigned upload URL', r.uploadUrl, {
    permission: 'verification:create',
    body: createUploadBody,
    status: 201,
    errors: [409, 503],
  }),
  key(
    'post',
    '/v1/verifications/:id/uploads/:uploadId/complete',
    'Complete an upload (checks the stored bytes)',
    r.upload,
    { permission: 'verification:create', body: completeUploadBody, errors: [409, 413, 503] },
  ),
  key(
    'post',
    '/v1/verifications/:id/client_token',
    "Renew the applicant's client token while the session is pending (the old one stops working)",
    r.clientToken,
    { permission: 'verification:create', body: renewTokenBody, errors: [409] },
  ),
  key('post', '/v1/verifications/:id/tags', 'Tag a verification', r.tagReferenceList, {
    permission: 'verification:create',
    body: taggingBody,
  }),
  key('delete', '/v1/verifications/:id/tags/:tagId', 'Remove a tag from a verification', r.tagRemoved, {
    permission: 'verification:create',
  }),
  key('get', '/v1/manual-reviews', 'List manual reviews', r.listOf(r.manualReview, 'ManualReviewList'), {
    permission: 'verification:read',
    query: listManualReviewsQuery,
  }),
  key('post', '/v1/manual-reviews/:id/decision', 'Decide a manual review', r.manualReview, {
    permission: 'verification:create',
    body: decisionBody,
    errors: [409],
  }),
  key('get', '/v1/flows', 'List flows', r.listOf(r.flow, 'FlowList'), {
    permission: 'settings:read',
    query: listFlowsQuery,
  }),
  key('post', '/v1/flows', 'Create a flow', r.flow, {
    permission: 'settings:write',
    body: createFlowBody,
    status: 201,
  }),
  key('get', '/v1/flows/:id', 'Read a flow', r.flow, { permission: 'settings:read' }),
  key('post', '/v1/flows/:id', 'Update a flow (optimistic version)', r.flow, {
    permission: 'settings:write',
    body: updateFlowBody,
    errors: [409],
  }),
  key('delete', '/v1/flows/:id', 'Delete a flow', r.flowDeleted, { permission: 'settings:write', errors: [409] }),
  key('post', '/v1/flows/:id/preview', 'Preview a flow as a short-lived sandbox session', r.flowPreview, {
    permission: 'verification:create',
    body: previewFlowBody,
  }),
  key('get', '/v1/tags', 'List tags', r.listOf(r.tag, 'TagList'), {
    permission: 'verification:read',
    query: listTagsQuery,
  }),
  key('post', '/v1/tags', 'Create a tag (200 with the existing tag of the same name)', r.tag, {
    permission: 'verification:create',
    body: createTagBody,
    status: 201,
    alsoStatus: [200],
    errors: [409],
  }),
  key('patch', '/v1/tags/:id', 'Update a tag', r.tag, {
    permission: 'verification:create',
    body: updateTagBody,
    errors: [409],
  }),
  key('delete', '/v1/tags/:id', 'Retire a tag', r.tag, { permission: 'verification:create' }),
  key('get', '/v1/applicants', 'List applicants', r.listOf(r.applicant, 'ApplicantList'), {
    permission: 'verification:read',
    query: listApplicantsQuery,
  }),
  key('get', '/v1/applicants/:id', 'Read an applicant', r.applicant, { permission: 'verification:read' }),
  key('post', '/v1/applicants/:id/tags', 'Tag an applicant', r.tagReferenceList, {
    permission: 'verification:create',
    body: taggingBody,
  }),
  key('delete', '/v1/applicants/:id/tags/:tagId', 'Remove a tag from an applicant', r.tagRemoved, {
    permission: 'verification:create',
  }),
  key('get', '/v1/usage', 'Usage summary', r.usageSummary, { permission: 'analytics:read', query: usageQuery }),
  key('get', '/v1/webhooks', 'List webhook endpoints', r.listOf(r.webhookEndpoint, 'WebhookEndpointList'), {
    permission: 'webhook:manage',
    query: listWebhooksQuery,
  }),
  key('post', '/v1/webhooks', 'Create a webhook endpoint (the signing secret is shown once)', r.webhookEndpoint, {
    permission: 'webhook:manage',
    body: createWebhookBody,
    status: 201,
  }),
  key('patch', '/v1/webhooks/:id', 'Update a webhook endpoint', r.webhookEndpoint, {
    permission: 'webhook:manage',
    body: updateWebhookBody,
  }),
  key('delete', '/v1/webhooks/:id', 'Delete a webhook endpoint', r.webhookEndpointDeleted, {
    permission: 'webhook:manage',
  }),
  key('post', '/v1/webhooks/:id/rotate_secret', 'Rotate the signing secret', r.webhookEndpoint, {
    permission: 'webhook:manage',
    body: rotateSecretBody,
  }),
  key('post', '/v1/webhooks/:id/test', 'Send a test event', r.webhookDelivery, {
    permission: 'webhook:manage',
    body: testWebhookBody,
    status: 202,
  }),
  key(
    'get',
    '/v1/webhooks/:id/deliveries',
    'The delivery log of an endpoint',
    r.listOf(r.webhookDelivery, 'WebhookDeliveryList'),
    { permission: 'webhook:manage', query: listDeliveriesQuery },
  ),

  {
    method: 'post',
    path: '/v1/console/sessions',
    summary: 'Sign in as a team member',
    auth: 'none',
    body: signInBody,
    status: 201,
    response: r.consoleSession,
    errors: [401, 429],
  },
  member('delete', '/v1/console/sessions/current', 'Sign out', r.consoleSessionDeleted),
  member('get', '/v1/console/settings', 'Account settings', r.accountSettings),
  member('patch', '/v1/console/settings', 'Change account settings (optimistic version)', r.accountSettings, {
    body: patchSettingsBody,
    errors: [409],
  }),
  member(
    'get',
    '/v1/console/verifications',
    "Verifications of the seat's environments (mode, status, email), newest first",
    r.listOf(r.consoleVerification, 'ConsoleVerificationList'),
    { query: listConsoleVerificationsQuery },
  ),
  member('get', '/v1/console/verifications/:id', 'One verification with decided_by', r.consoleVerification),
  member(
    'get',
    '/v1/console/verifications/:id/identity',
    'Reveal the fields read off the document (audited)',
    r.revealedIdentity,
    { permission: 'verifications.reveal', errors: [500] },
  ),
  member(
    'patch',
    '/v1/console/verifications/:id/identity',
    'Correct applicant data (new identity version; verification.data_updated)',
    r.identityEdit,
    { permission: 'verifications.reveal', body: identityEditInput, errors: [409] },
  ),
  member(
    'get',
    '/v1/console/verifications/:id/evidence',
    'Evidence images with two-minute URLs (audited)',
    r.evidenceList,
    { permission: 'verifications.reveal' },
  ),
  member(
    'get',
    '/v1/console/audit',
    'The audit trail of reveals, evidence views and exports, newest first',
    r.listOf(r.auditEvent, 'AuditEventList'),
    { query: listAuditQuery },
  ),
  member(
    'get',
    '/v1/console/activity',
    'Team activity (who did what, through which surface), newest first',
    r.listOf(r.activity, 'ActivityList'),
    { query: listActivityQuery },
  ),
  member('get', '/v1/console/members', 'Team members of the account, newest first', r.listOf(r.member, 'MemberList'), {
    query: listMembersQuery,
  }),
  member(
    'post',
    '/v1/console/members',
    'Invite a member (password shown once); grant only what you hold',
    r.invitedMember,
    { body: inviteMemberInput, status: 201, permission: 'settings.manage', errors: [409] },
  ),
  member('get', '/v1/console/members/:id', 'One team member', r.member),
  member(
    'patch',
    '/v1/console/members/:id',
    "Change a member's name, permissions or environments (complete sets)",
    r.member,
    { body: updateMemberInput, permission: 'settings.manage' },
  ),
  member('delete', '/v1/console/members/:id', 'Deactivate a member (sessions end; not yourself)', r.member, {
    permission: 'settings.manage',
  }),
  member(
    'get',
    '/v1/console/reviews',
    'Open cases, newest first (holding=mine: the ones you hold)',
    r.listOf(r.consoleReview, 'ConsoleReviewList'),
    { query: listConsoleReviewsQuery },
  ),
  member('get', '/v1/console/reviews/policy', 'The review policy', r.reviewPolicy),
  member('post', '/v1/console/reviews/:id/claim', 'Claim (or renew the claim on) a case', r.consoleReview, {
    body: emptyBody,
  }),
  member('delete', '/v1/console/reviews/:id/claim', 'Release a case (no error when not held)', r.consoleReview),
  member(
    'post',
    '/v1/console/reviews/:id/decision',
    'Decide a case (REVIEW_NOT_HELD when claiming is required)',
    r.consoleReview,
    { body: consoleDecisionBody, errors: [409] },
  ),
  member(
    'post',
    '/v1/console/reviews/:id/escalation',
    'Escalate a case (REVIEW_NOT_ESCALATABLE when decided, escalated or unheld under claim_required)',
    r.consoleReview,
    { body: escalationBody },
  ),
  member(
    'post',
    '/v1/console/reviews/:id/escalation/return',
    'Return an escalated case to the queue',
    r.consoleReview,
    { body: escalationReturnBody, permission: 'reviews.resolve_escalation' },
  ),
  member(
    'put',
    '/v1/console/reviews/:id/assignment',
    'Route a case to a member, or back to the pool',
    r.consoleReview,
    { body: assignmentBody, permission: 'reviews.assign' },
  ),
  member(
    'post',
    '/v1/console/reviews/:id/lock',
    'Mark presence on a case (advisory; lapses after presence_ttl_ms)',
    r.reviewLock,
    { body: emptyBody },
  ),
  member('delete', '/v1/console/reviews/:id/lock', 'Remove your presence marker', r.reviewLockDeleted),

  client(
    'get',
    '/v1/hosted/verifications/:id',
    "The hosted page's session: steps, branding, language, progress",
    r.hostedSession,
    { errors: [409] },
  ),
  client(
    'post',
    '/v1/hosted/verifications/:id/consent',
    "Record the applicant's consent (agree) or its refusal (decline) before any capture",
    r.hostedSession,
    { body: hostedConsentBody, errors: [409] },
  ),
  client(
    'get',
    '/v1/hosted/verifications/:id/handoff',
    "A QR code of this session's link, to continue on a phone",
    r.handoff,
    { errors: [409] },
  ),
  client(
    'post',
    '/v1/hosted/verifications/:id/uploads',
    'Presign an applicant upload (null upload_url in a preview); 409 CONSENT_REQUIRED before consent',
    r.hostedUploadUrl,
    { body: hostedUploadBody, status: 201, errors: [409, 503] },
  ),
  client(
    'post',
    '/v1/hosted/verifications/:id/uploads/:uploadId/complete',
    'Complete an applicant upload (checks the stored bytes)',
    r.hostedUpload,
    { body: hostedEmptyBody, errors: [409, 503] },
  ),
  client('post', '/v1/hosted/verifications/:id/email', "Send a one-time code to the applicant's address", r.emailStep, {
    body: hostedEmailBody,
    errors: [409],
  }),
  client('post', '/v1/hosted/verifications/:id/email/confirm', 'Confirm the address with the code', r.emailStep, {
    body: hostedCodeBody,
    errors: [409],
  }),
  client(
    'post',
    '/v1/hosted/verifications/:id/liveness/challenge',
    'Issue a random one-use liveness challenge bound to the session (frames then upload with challenge_step)',
    r.livenessChallenge,
    { body: hostedEmptyBody, status: 201, errors: [409] },
  ),
  client(
    'post',
    '/v1/hosted/verifications/:id/submit',
    'Submit: pending -> processing (verification.awaiting_service)',
    r.hostedSession,
    { body: hostedEmptyBody, errors: [409] },
  ),
  member(
    'get',
    '/v1/console/logs/requests',
    "API calls of the account's keys (key, status class, route, time), newest first",
    r.listOf(r.requestLog, 'RequestLogList'),
    { permission: 'logs.read', query: listRequestLogsQuery },
  ),
  member(
    'get',
    '/v1/console/logs/deliveries',
    'Webhook deliveries of every endpoint (status, event), newest first',
    r.listOf(r.deliveryLog, 'DeliveryLogList'),
    { permission: 'logs.read', query: listDeliveryLogQuery },
  ),
  member(
    'get',
    '/v1/console/logs/deliveries/:id',
    'One delivery; the body only with verifications.reveal (audited), else absent',
    r.deliveryLog,
    { permission: 'logs.read' },
  ),
  member(
    'post',
    '/v1/console/logs/deliveries/:id/replay',
    'Re-arm a delivery on the normal retry ladder (409 WEBHOOK_ENDPOINT_DELETED / WEBHOOK_ENDPOINT_DISABLED / DELIVERY_IN_FLIGHT)',
    r.deliveryLog,
    { permission: 'logs.read', body: replayBody, status: 202, errors: [409] },
  ),
  member(
    'post',
    '/v1/console/exports/verifications',
    'Verifications as CSV, at most 5,000 rows (X-Rows, X-Truncated; audited)',
    r.csv,
    { permission: 'verifications.export', body: exportVerificationsBody, contentType: 'text/csv' },
  ),
  member(
    'post',
    '/v1/console/exports/usage',
    'Usage per day, environment and check type as CSV (X-Rows, X-Truncated; audited)',
    r.csv,
    { permission: 'usage.export', body: exportUsageBody, contentType: 'text/csv' },
  ),
  member(
    'get',
    '/v1/console/overview',
    'Status breakdown and the count awaiting a reviewer (mode, since)',
    r.overview,
    { query: overviewQuery },
  ),
  member(
    'get',
    '/v1/console/analytics',
    'The overview by UTC day, outcomes decided by a reviewer, automation rate (since defaults to 30 days ago)',
    r.analytics,
    { query: analyticsQuery },
  ),
  member(
    'get',
    '/v1/console/usage',
    'Metering per check type and per environment (the records of GET /v1/usage)',
    r.usageReport,
    { query: consoleUsageQuery },
  ),
  member(
    'get',
    '/v1/console/persons',
    "Persons of the seat's environments with their attempt counts, newest first; no identity",
    r.listOf(r.person, 'PersonList'),
    { query: listPersonsQuery, permission: 'persons.read' },
  ),
  member(
    'get',
    '/v1/console/persons/:id',
    'A person and its attempt history, newest first; no identity',
    r.personDetail,
    { permission: 'persons.read' },
  ),
];
