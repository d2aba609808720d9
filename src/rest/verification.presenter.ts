import type { Check } from '../entities/check.entity.js';
import type { Upload } from '../entities/upload.entity.js';
import type { Verification } from '../entities/verification.entity.js';
import type { CheckOut, EvidenceOut, VerificationOut } from '../contracts/index.js';
import { iso } from './presenters.js';

export interface TagRef {
  id: string;
  name: string;
  color: string;
}

export interface EvidenceItem {
  upload: Upload;
  url: string;
  expiresIn: number;
}

export interface VerificationView {
  clientToken?: string;
  tags?: TagRef[];
  publicUrl: string;
  applicant?: { version: number; fields: Record<string, string> | null };
  evidence?: EvidenceItem[];
}

/** The check fields the resource shows: an entity, or a row the create path wrote itself. */
export type PresentableCheck = Pick<
  Check,
  | 'id'
  | 'type'
  | 'status'
  | 'required'
  | 'verdict'
  | 'score'
  | 'providerTier'
  | 'reasonCodes'
  | 'createdAt'
  | 'updatedAt'
  | 'position'
> & { findings?: Check['findings'] };

/** The verification fields the resource shows; `checks` is a loaded collection or a plain list. */
export type PresentableVerification = Pick<
  Verification,
  | 'id'
  | 'status'
  | 'mode'
  | 'verdict'
  | 'score'
  | 'reasonCodes'
  | 'changeReason'
  | 'identityVersion'
  | 'identityEditedAt'
  | 'locale'
  | 'metadata'
  | 'expiresAt'
  | 'createdAt'
  | 'updatedAt'
> & { consent?: Verification['consent']; returnUrl?: string | null } & {
  flow: { id: string };
  checks: Verification['checks'] | PresentableCheck[];
};

const checksOf = (v: PresentableVerification): PresentableCheck[] =>
  Array.isArray(v.checks) ? [...v.checks] : v.checks.isInitialized() ? [...v.checks.getItems()] : [];

export function presentCheck(check: PresentableCheck): CheckOut {
  return {
    id: check.id,
    object: 'check',
    type: check.type,
    status: check.status,
    required: check.required,
    verdict: check.verdict ?? null,
    score: check.score ?? null,
    provider_tier: check.providerTier,
    reason_codes: check.reasonCodes,
    // Stored from the engine's findings, each with its code; a JSON column reads back untyped.
    findings: (check.findings ?? []) as CheckOut['findings'],
    created_at: iso(check.createdAt),
    updated_at: iso(check.updatedAt),
  };
}

export function presentEvidence({ upload, url, expiresIn }: EvidenceItem): EvidenceOut {
  const analysis = (upload.analysis ?? {}) as Record<string, unknown>;
  return {
    id: upload.id,
    object: 'evidence',
    kind: upload.kind,
    side: upload.side ?? null,
    url,
    url_expires_in: expiresIn,
    mrz_valid: (analysis.mrz_valid as boolean | undefined) ?? null,
    barcode_consistent: (analysis.barcode_consistent as boolean | undefined) ?? null,
    country: (analysis.country as string | undefined) ?? null,
    captured_at: iso(upload.uploadedAt),
  };
}

/** The Verification resource; identity only when `applicant` / `evidence` are passed in (include=). */
export function presentVerification(v: PresentableVerification, view: VerificationView): VerificationOut {
  const checks = checksOf(v).sort((a, b) => a.position - b.position);
  return {
    id: v.id,
    object: 'verification',
    status: v.status,
    mode: v.mode,
    flow: v.flow.id,
    verdict: v.verdict ?? null,
    score: v.score ?? null,
    reason_codes: v.reasonCodes,
    change_reason: v.changeReason ?? null,
    checks: checks.map(presentCheck),
    tags: view.tags ?? [],
    identity_version: v.identityVersion,
    identity_edited_at: iso(v.identityEditedAt),
    ...(view.applicant
      ? { applicant: { object: 'applicant_data', version: view.applicant.version, fields: view.applicant.fields } }
      : {}),
    ...(view.evidence ? { evidence: view.evidence.map(presentEvidence) } : {}),
    client_token: view.clientToken ?? null,
    // The create answer's link is ready to open: the token rides in the fragment, which no server or log sees.
    hosted_verify_url: `${view.publicUrl}/verify/${v.id}${view.clientToken ? `#token=${view.clientToken}` : ''}`,
    locale: v.locale,
    metadata: v.metadata,
    // The applicant's consent on the hosted page (null until given; uploads through the key API rest on the integrator's own).
    consent: v.consent
      ? { version: v.consent.version, language: v.consent.language, given_at: v.consent.given_at }
      : null,
    return_url: v.returnUrl ?? null,
    expires_at: iso(v.expiresAt),
    created_at: iso(v.createdAt),
    updated_at: iso(v.updatedAt),
  };
}
