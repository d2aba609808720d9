import type { Check } from '../entities/check.entity.js';
import type { FlowSnapshot, SandboxInput, Verdict } from '../entities/verification.entity.js';

/** What the document check read (off the images in live, the sandbox `document` in sandbox). */
export interface DocumentRead {
  number?: string;
  national_id?: string;
  type?: string;
  issuing_country?: string;
  date_of_birth?: string;
  expiry_date?: string;
  first_name?: string;
  last_name?: string;
  nationality?: string;
  sex?: string;
  /** The machine-readable zone's own reading, when the document has one. */
  mrz?: { document_number?: string; date_of_birth?: string };
}

/** The decrypted identity of a session. */
export interface Identity {
  email?: string;
  reference_id?: string;
  document?: DocumentRead;
  fields?: Record<string, string>;
}

/** The session's completed uploads, loaded from the store before the checks run (live sessions). */
export interface CheckImages {
  document_front?: Buffer;
  document_back?: Buffer;
  selfie?: Buffer;
}

export interface CheckInput {
  check: Check;
  snapshot: FlowSnapshot;
  identity: Identity;
  sandbox: SandboxInput | null;
  now: Date;
  images?: CheckImages;
}

/** What a check found on one image, stored on its upload and served as evidence (never identity). */
export interface EvidenceAnalysis {
  kind: 'document' | 'selfie';
  side?: 'front' | 'back';
  analysis: Record<string, unknown>;
}

/** One runner per check type behind one interface. */
export interface CheckResult {
  status: 'completed' | 'skipped' | 'errored';
  verdict: Verdict | null;
  score: number | null;
  reasonCodes: string[];
  providerTier: string;
  /** What the document check read off the images: sealed into the identity so R4/R7, expiry and age run on it. */
  document?: DocumentRead;
  evidence?: EvidenceAnalysis[];
}

export interface CheckRunner {
  type: string;
  run(input: CheckInput): Promise<CheckResult> | CheckResult;
}

export const result = (verdict: Verdict, score: number, reasonCodes: string[] = [], providerTier = 'standard'): CheckResult => ({
  status: 'completed',
  verdict,
  score,
  reasonCodes,
  providerTier,
});
