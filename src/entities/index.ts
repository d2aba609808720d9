import { AccountSettings } from './account-settings.entity.js';
import { ApiKey } from './api-key.entity.js';
import { ReverificationGrant } from './reverification-grant.entity.js';
import { Applicant } from './applicant.entity.js';
import { Check } from './check.entity.js';
import { Event } from './event.entity.js';
import { Flow } from './flow.entity.js';
import { IdempotencyKey } from './idempotency-key.entity.js';
import { ManualReview } from './manual-review.entity.js';
import { Member } from './member.entity.js';
import { MemberSession } from './member-session.entity.js';
import { Merchant } from './merchant.entity.js';
import { ApplicantTag, Tag, VerificationTag } from './tag.entity.js';
import { Upload } from './upload.entity.js';
import { UsageRecord } from './usage-record.entity.js';
import { Verification } from './verification.entity.js';
import { WebhookDelivery } from './webhook-delivery.entity.js';
import { ApplicantNotification } from './applicant-notification.entity.js';
import { WebhookEndpoint } from './webhook-endpoint.entity.js';

export { AccountSettings, ReverificationGrant };
export {
  ApiKey,
  Applicant,
  ApplicantTag,
  Check,
  Event,
  Flow,
  IdempotencyKey,
  ManualReview,
  Member,
  MemberSession,
  Merchant,
  Tag,
  Upload,
  UsageRecord,
  Verification,
  VerificationTag,
};

/** Every entity, for the ORM. */
export const ENTITIES = [
  Merchant,
  ApiKey,
  Member,
  MemberSession,
  Flow,
  Verification,
  Check,
  Upload,
  Applicant,
  Tag,
  VerificationTag,
  ApplicantTag,
  Event,
  IdempotencyKey,
  UsageRecord,
  ManualReview,
  AccountSettings,
  ReverificationGrant,
  WebhookEndpoint,
  WebhookDelivery,
  ApplicantNotification,
];

/** Entities scoped by account and environment (the `tenant` filter). */
export const TENANT_ENTITIES = [
  'ApiKey',
  'Flow',
  'Verification',
  'Check',
  'Upload',
  'Applicant',
  'Tag',
  'Event',
  'UsageRecord',
  'ManualReview',
  'ReverificationGrant',
  'WebhookEndpoint',
  'WebhookDelivery',
  'ApplicantNotification',
];

/** Entities scoped by account only (the `merchant` filter). */
export const MERCHANT_ENTITIES = ['Member', 'MemberSession', 'AccountSettings'];
