/** Reason codes, check types and trail actions in words for reviewers. */
export const REASON_WORDS: Record<string, string> = {
  SELFIE_MISMATCH: 'The selfie does not match the document photo',
  ALREADY_VERIFIED: 'This person is already verified',
  REVIEW_IN_PROGRESS: 'This person already has a case waiting on review',
  INCOMPLETE_DOCUMENT: 'The document lacks a field it always prints, or a field fails its own check',
  EXPIRY_UNREADABLE: 'The expiry date could not be read',
  ID_INVALID: 'Printed details disagree with the machine-readable zone',
  IMAGE_UNREADABLE: 'An image could not be read',
  LIVENESS_FAILED: 'The liveness check failed',
  LIVENESS_UNCERTAIN: 'The liveness check was not conclusive',
  IMAGE_ANALYSIS_UNAVAILABLE: 'Image analysis was unavailable',
  VIDEO_ANALYSIS_UNAVAILABLE: 'Video analysis was unavailable',
  DOCUMENT_EXPIRED: 'The document has expired',
  DATE_OF_BIRTH_UNREADABLE: 'The date of birth could not be read',
  SELFIE_FACE_NOT_FOUND: 'No face was found in the selfie',
  DOCUMENT_FACE_NOT_FOUND: 'No face was found on the document',
  MULTIPLE_FACES: 'More than one face was found',
  IMAGE_QUALITY: 'Image quality is too low',
  IMAGE_MISSING: 'An image is missing',
  EMAIL_DISPOSABLE: 'The email address is disposable',
  EMAIL_INVALID: 'The email address is invalid',
  EMAIL_NOT_PROVIDED: 'No email address was given',
  EMAIL_NOT_CONFIRMED: 'The email address was not confirmed',
  DOCUMENT_TYPE_NOT_ACCEPTED: 'This document type is not accepted by the flow',
  AGE_REVIEW: 'The age needs a person to check',
  AGE_RESTRICTED: 'The applicant is under the age limit',
  AGE_ESTIMATED_FROM_FACE: 'The age was estimated from the face',
  WATCHLIST_MATCH: 'A watchlist entry matches',
  SANCTIONS_MATCH: 'A sanctions list entry matches',
  PEP_MATCH: 'A politically exposed person matches',
  AML_NAME_UNREADABLE: 'The name could not be read for screening',
  MRZ_NOT_FOUND: 'No machine-readable zone was found',
  PRINTED_FIELDS_UNCERTAIN:
    'A printed field disagrees with the machine-readable zone on a picture too coarse to be sure',
  NO_REQUIRED_CHECK_COMPLETED: 'No required check completed',
  CHECK_UNAVAILABLE: 'A check was unavailable',
  SANDBOX_REVIEW: 'Sandbox: sent to review on request',
  SANDBOX_REJECTED: 'Sandbox: rejected on request',
  FRAUD_NETWORK: 'The same document was presented by another person (fraud network)',
};

export const reasonInWords = (code: string) =>
  REASON_WORDS[code] ??
  code
    .toLowerCase()
    .replace(/_/g, ' ')
    .replace(/^./, (c) => c.toUpperCase());

export const CHECK_WORDS: Record<string, string> = {
  document: 'Document',
  liveness: 'Liveness',
  face_match: 'Face match',
  age: 'Age',
  aml: 'AML screening',
  email: 'Email',
  fraud_network: 'Fraud network',
};

export const VERDICT_WORDS: Record<string, string> = { approve: 'Approve', reject: 'Reject', review: 'Needs review' };

export const STATUS_COLORS: Record<string, string> = {
  approved: 'green',
  rejected: 'red',
  manual_review: 'orange',
  pending: 'gray',
  processing: 'blue',
  expired: 'dark',
  queued: 'gray',
  in_review: 'blue',
  escalated: 'grape',
  resolved: 'teal',
};

export const ACTION_WORDS: Record<string, string> = {
  'identity.revealed': 'Revealed identity',
  'identity.edited': 'Edited identity',
  'evidence.viewed': 'Viewed evidence',
  'delivery.body_viewed': 'Viewed a delivery body',
  'export.verifications': 'Exported verifications',
  'export.verifications_with_identity': 'Exported verifications with identity',
  'export.usage': 'Exported usage',
};

export const actionInWords = (action: string) => ACTION_WORDS[action] ?? action.replace(/[._]/g, ' ');

export const PERMISSIONS = [
  'verifications.reveal',
  'persons.read',
  'logs.read',
  'verifications.export',
  'usage.export',
  'reviews.assign',
  'reviews.resolve_escalation',
  'settings.manage',
] as const;

export const when = (iso: string | null | undefined) =>
  iso ? new Date(iso).toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'short' }) : '—';
export const shortId = (id: string) => (id.length > 14 ? `${id.slice(0, 12)}…` : id);
