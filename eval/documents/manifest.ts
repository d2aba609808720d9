import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * The real-document set in data/documents/: a manifest of scans and photos of published
 * specimen documents, each with its truth read by eye and confirmed by its zone's check
 * digits. Split once into `heldout` and `tuning`; data/documents/heldout.sha256 seals the
 * held-out files and truth so a later edit shows in review and fails the manifest test.
 */
export type Layout = 'TD1' | 'TD2' | 'TD3' | 'MRV-A' | 'MRV-B' | 'FRA-ID';
export type DocumentSet = 'heldout' | 'tuning';

export interface Truth {
  document_number: string;
  date_of_birth: string;
  /** Null where the zone carries no expiry (the French identity card of 1994). */
  expiry_date: string | null;
  surname: string;
  given_names: string;
  nationality: string;
  issuing_country: string;
  sex: 'M' | 'F' | null;
}

export interface Source {
  repo: string;
  path: string;
  commit: string;
  blob?: string;
  licence: string;
}

export interface ManifestDocument {
  id: string;
  set: DocumentSet;
  /** Relative to data/documents/; null when the licence does not let us ship the picture. */
  file: string | null;
  /** Pictures of one document share a group, and a group never spans both sets. */
  group: string;
  layout: Layout;
  document_type: 'passport' | 'id_card' | 'visa';
  capture: 'scan' | 'photo' | 'digital';
  orientation: string;
  mrz: string[];
  truth: Truth;
  source: Source;
  sha256: string;
  ship: boolean;
  not_shipped_because?: string;
  note?: string;
}

/** A picture with no readable zone: nothing should be read from it, least of all a valid zone. */
export interface ManifestNegative {
  id: string;
  set: DocumentSet;
  file: string | null;
  capture: string;
  orientation: string;
  note: string;
  source: Source;
  sha256: string;
  ship: boolean;
  not_shipped_because?: string;
}

export interface Manifest {
  about: string;
  documents: ManifestDocument[];
  negatives: ManifestNegative[];
  excluded?: { source: Omit<Source, 'licence'>; why: string }[];
}

export const documentsDir = (): string =>
  path.resolve(process.env.DOCUMENTS_DIR ?? path.join(process.cwd(), 'data', 'documents'));

export function loadManifest(dir = documentsDir()): Manifest {
  return JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as Manifest;
}

export const sha256 = (bytes: Buffer | string): string => createHash('sha256').update(bytes).digest('hex');

/** The held-out entries as the seal hashes them: their manifest JSON, in manifest order. */
export function heldoutDigest(manifest: Manifest): string {
  const heldout = {
    documents: manifest.documents.filter((d) => d.set === 'heldout'),
    negatives: manifest.negatives.filter((n) => n.set === 'heldout'),
  };
  return sha256(JSON.stringify(heldout));
}

/** data/documents/heldout.sha256: `<sha256>  <name>` lines (sha256sum format for the shipped files). */
export function readSeal(dir = documentsDir()): Map<string, string> {
  const lines = fs
    .readFileSync(path.join(dir, 'heldout.sha256'), 'utf8')
    .split('\n')
    .filter((l) => l.trim() && !l.startsWith('#'));
  return new Map(
    lines.map((l) => {
      const [hash, ...name] = l.trim().split(/\s+/);
      return [name.join(' '), hash];
    }),
  );
}

export type Loaded = { bytes: Buffer; from: string } | { skipped: string };

/**
 * A manifest picture's bytes: the shipped file, else `<DOCUMENTS_EXTERNAL_DIR>/<owner>/<repo>/<path>`
 * (a checkout of the source repository at the recorded commit). Bytes whose SHA-256 differs
 * from the manifest's are refused, so the truth always belongs to the picture graded.
 */
export function loadPicture(
  entry: { file: string | null; source: Source; sha256: string },
  dir = documentsDir(),
  externalDir = process.env.DOCUMENTS_EXTERNAL_DIR,
): Loaded {
  const candidates = [
    entry.file ? path.join(dir, entry.file) : null,
    externalDir ? path.join(externalDir, entry.source.repo, entry.source.path) : null,
  ].filter((p): p is string => !!p);
  for (const file of candidates) {
    if (!fs.existsSync(file)) continue;
    const bytes = fs.readFileSync(file);
    if (sha256(bytes) !== entry.sha256) return { skipped: `${file}: SHA-256 differs from the manifest` };
    return { bytes, from: file };
  }
  return {
    skipped: entry.file
      ? `${entry.file} missing`
      : `not shipped (${entry.source.licence}); set DOCUMENTS_EXTERNAL_DIR to a folder holding ${entry.source.repo} at ${entry.source.commit.slice(0, 10)}`,
  };
}
