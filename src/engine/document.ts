import { analyseDocument, type DocumentAnalysis, type SideAnalysis } from './document/index.js';
import {
  type CheckInput,
  type CheckResult,
  type CheckRunner,
  type DocumentRead,
  type EvidenceAnalysis,
  type FlowSnapshot,
  result,
} from './types.js';

/** Fields every document of a kind always prints (INCOMPLETE_DOCUMENT when one is missing). */
const PRINTED_FIELDS: Record<string, (keyof DocumentRead)[]> = {
  passport: ['number', 'date_of_birth', 'expiry_date', 'issuing_country'],
  id_card: ['number', 'date_of_birth', 'expiry_date', 'issuing_country'],
  driving_licence: ['number', 'date_of_birth', 'issuing_country'],
  residence_permit: ['number', 'date_of_birth', 'expiry_date', 'issuing_country'],
};

const DATE = /^\d{4}-\d{2}-\d{2}$/;
export const isDate = (value: string | undefined): value is string =>
  !!value && DATE.test(value) && !Number.isNaN(Date.parse(`${value}T00:00:00Z`));

type Disposition = 'reject' | 'review' | 'approve' | 'accept' | 'waive' | 'ignore';

/** The policy tree's finding policy for a code, most specific first: country/document type, country, root. */
export function findingDisposition(
  snapshot: FlowSnapshot,
  code: string,
  country?: string,
  documentType?: string,
): Disposition | undefined {
  const tree = (snapshot.policyTree ?? {}) as Record<string, any>;
  const node = country ? tree.by_country?.[country] : undefined;
  const leaves = [
    documentType ? node?.by_document_type?.[documentType] : undefined,
    node,
    documentType ? tree.legacy_by_document_type?.[documentType] : undefined,
    tree,
  ];
  for (const leaf of leaves) {
    const finding = leaf?.findings?.[code];
    if (finding?.disposition) {
      if (finding.expires_at && Date.parse(finding.expires_at) < Date.now()) continue;
      return finding.disposition as Disposition;
    }
  }
  return undefined;
}

/** expiry_policy: the first rule matching country and document type (`*` = any), else `default` (reject). */
export function expiryDisposition(snapshot: FlowSnapshot, country?: string, documentType?: string): Disposition {
  const policy = (snapshot.expiryPolicy ?? {}) as {
    default?: Disposition;
    rules?: { country?: string; document_type?: string; disposition: Disposition }[];
  };
  const matches = (want: string | undefined, have: string | undefined) => !want || want === '*' || want === have;
  const rule = policy.rules?.find((r) => matches(r.country, country) && matches(r.document_type, documentType));
  return rule?.disposition ?? policy.default ?? 'reject';
}

const normalise = (value: string) => value.toUpperCase().replace(/[^0-9A-Z]/g, '');

/** The rules that need only the read data: type accepted, MRZ agreement, completeness, expiry. */
export function evaluateDocument(read: DocumentRead, snapshot: FlowSnapshot, now: Date): CheckResult {
  const rejects: string[] = [];
  const reviews: string[] = [];
  const type = read.type;
  if (type && snapshot.acceptedDocumentTypes.length > 0 && !snapshot.acceptedDocumentTypes.includes(type))
    rejects.push('DOCUMENT_TYPE_NOT_ACCEPTED');
  if (read.mrz) {
    const numberDisagrees =
      read.mrz.document_number && read.number && normalise(read.mrz.document_number) !== normalise(read.number);
    const dobDisagrees = read.mrz.date_of_birth && read.date_of_birth && read.mrz.date_of_birth !== read.date_of_birth;
    if (numberDisagrees || dobDisagrees) rejects.push('ID_INVALID');
  }
  const missing = (PRINTED_FIELDS[type ?? 'passport'] ?? PRINTED_FIELDS.passport).filter(
    (f) => f !== 'expiry_date' && !read[f],
  );
  if (missing.length > 0) {
    const waiver = findingDisposition(snapshot, 'INCOMPLETE_DOCUMENT', read.issuing_country, type);
    if (!waiver || !['waive', 'ignore', 'approve', 'accept'].includes(waiver)) reviews.push('INCOMPLETE_DOCUMENT');
  }
  const expiryPrinted = (PRINTED_FIELDS[type ?? 'passport'] ?? []).includes('expiry_date');
  if (read.expiry_date !== undefined || expiryPrinted) {
    if (!isDate(read.expiry_date)) reviews.push('EXPIRY_UNREADABLE');
    else if (Date.parse(`${read.expiry_date}T23:59:59Z`) < now.getTime()) {
      const disposition = expiryDisposition(snapshot, read.issuing_country, type);
      if (disposition === 'reject') rejects.push('DOCUMENT_EXPIRED');
      else if (disposition === 'review') reviews.push('DOCUMENT_EXPIRED');
    }
  }
  if (rejects.length > 0) return result('reject', 0.05, [...rejects, ...reviews]);
  if (reviews.length > 0) return result('review', 0.5, reviews);
  return result('approve', 0.95);
}

/** Evidence for one analysed image: validity flags, why a read failed, quality measurements; never identity. */
function evidenceOf(side: SideAnalysis, analysis: DocumentAnalysis): EvidenceAnalysis {
  return {
    kind: 'document',
    side: side.side,
    analysis: {
      mrz_valid: side.mrz ? side.mrz.valid : null,
      mrz_format: side.mrz?.format ?? null,
      mrz_failed: side.mrz?.failed ?? [],
      mrz_ambiguous: side.mrz?.ambiguous ?? [],
      barcode_consistent: side.barcode ? analysis.barcode_consistent : null,
      country: analysis.read?.issuing_country ?? null,
      document_type: analysis.read?.type ?? null,
      refused: side.refused ?? null,
      quality: side.quality.metrics,
      problems: side.quality.problems,
    },
  };
}

/** Document kinds the check reads but never accepts as identity documents (a visa is not one). */
const UNSUPPORTED_TYPES = new Set(['visa']);

/**
 * The check's verdict from an analysis. A failed or uncertain read is never a final rejection:
 * a capture problem is a retryable IMAGE_QUALITY / IMAGE_UNREADABLE, a zone that cannot be
 * verified goes to review (MRZ_NOT_FOUND). A final rejection needs positive evidence: a verified
 * zone read by the rules (expired, type refused), or a confident disagreement (ID_INVALID): a
 * printed field or barcode against the zone, or a zone read identically twice on a good capture
 * whose check digits fail.
 */
export function documentResult(analysis: DocumentAnalysis, snapshot: FlowSnapshot, now: Date): CheckResult {
  const evidence = analysis.sides.map((side) => evidenceOf(side, analysis));
  if (analysis.outcome === 'unreadable') return { ...result('reject', 0, ['IMAGE_UNREADABLE']), evidence };
  if (analysis.outcome === 'image_quality') return { ...result('reject', 0, ['IMAGE_QUALITY']), evidence };
  // A complete zone read the same way twice on a good capture whose check digits fail: its data was altered. Nothing of it is stored.
  if (analysis.outcome === 'contradicted') return { ...result('reject', 0.05, ['ID_INVALID']), evidence };
  if (analysis.outcome !== 'read' || !analysis.read) return { ...result('review', 0.3, ['MRZ_NOT_FOUND']), evidence };
  const read: DocumentRead = analysis.read;
  if (read.type && UNSUPPORTED_TYPES.has(read.type))
    return { ...result('reject', 0.05, ['DOCUMENT_TYPE_NOT_ACCEPTED']), document: read, evidence };
  const rules = evaluateDocument(read, snapshot, now);
  // A barcode or a confidently located printed field disagreeing with the verified reading: the document is not what it claims.
  if (analysis.barcode_consistent === false || analysis.disagreements.length > 0) {
    return { ...result('reject', 0.05, [...new Set(['ID_INVALID', ...rules.reasonCodes])]), document: read, evidence };
  }
  // A printed field read off a coarse capture disagrees: the reading is uncertain, a person looks (never ID_INVALID).
  if (analysis.doubtful?.length) {
    const codes = [...rules.reasonCodes, 'PRINTED_FIELDS_UNCERTAIN'];
    return {
      ...(rules.verdict === 'reject' ? result('reject', 0.05, codes) : result('review', 0.5, codes)),
      document: read,
      evidence,
    };
  }
  return { ...rules, document: read, evidence };
}

export const documentRunner: CheckRunner = {
  type: 'document',
  needsImages: true,
  async run(input: CheckInput): Promise<CheckResult> {
    const front = input.images?.document_front;
    // Sandbox reads the simulated document exactly as before; live analyses the uploaded images.
    if (!input.sandbox && front) {
      // In the worker pool when there is one (the service): OCR and image work stay off the event loop.
      const images = { front, back: input.images?.document_back };
      const analysis = input.engine
        ? await input.engine.run('document.analyse', { ...images, now: input.now })
        : await analyseDocument(images, { now: input.now });
      return documentResult(analysis, input.snapshot, input.now);
    }
    const read = input.identity.document;
    if (!read) return result('review', 0, ['IMAGE_ANALYSIS_UNAVAILABLE']);
    return evaluateDocument(read, input.snapshot, input.now);
  },
};
