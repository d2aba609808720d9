import type { FlowSnapshot } from '../../src/entities/verification.entity.js';
import { documentRunner } from '../../src/engine/document.js';
import { analyseDocument } from '../../src/engine/document/index.js';
import type { Check } from '../../src/entities/check.entity.js';
import type { CheckResult, Identity } from '../../src/engine/types.js';
import type { EvalTable } from '../run.js';
import { COLUMNS, type Graded, gradeGenuine, reportedValid, row } from './grade.js';
import { type DocumentSet, type ManifestDocument, loadManifest, loadPicture } from './manifest.js';
import { NEAR, matching, readDataset } from './overlap.js';

/**
 * The zone model's training lines (Doubango's tesseractMRZ dataset), when its git directory is
 * given: pictures whose zone lines it contains are counted apart as well (contamination).
 */
function trainingOverlap(docs: ManifestDocument[]): { exact: Set<string>; near: Set<string> } | null {
  const gitDir = process.env.TESSERACT_MRZ_GIT;
  if (!gitDir) return null;
  const dataset = readDataset({ gitDir });
  const exact = new Set<string>();
  const near = new Set<string>();
  for (const d of docs) {
    const m = matching(dataset, d.mrz);
    if (m.exact.length) exact.add(d.id);
    if (m.near.length) near.add(d.id);
  }
  return { exact, near };
}

/*
 * The real pictures of data/documents/ through the live document check: documentRunner.run,
 * the function the verification.run-checks job calls (its pool task runs the same
 * analyseDocument), then graded against the truth. Held-out and tuning are measured apart.
 */
const snapshot = { steps: [], acceptedDocumentTypes: [], policyTree: {}, expiryPolicy: {} } as unknown as FlowSnapshot;

/** The live check on one front image, as the service runs it without a pool. */
export async function liveDocumentCheck(
  front: Buffer,
  now: Date,
): Promise<{ result: CheckResult; ms: number; cpuMs: number }> {
  const started = performance.now();
  const cpu = process.cpuUsage();
  const result = await documentRunner.run({
    check: { type: 'document' } as unknown as Check,
    snapshot,
    identity: {} as Identity,
    sandbox: null,
    now,
    images: { document_front: front },
  });
  const used = process.cpuUsage(cpu);
  return { result, ms: performance.now() - started, cpuMs: (used.user + used.system) / 1000 };
}

const orientationBucket = (o: string) =>
  o === 'upright'
    ? 'upright'
    : o.startsWith('exif_')
      ? 'EXIF orientation tag'
      : o === 'tilted'
        ? 'tilted (10–30°)'
        : 'rotated 90/180/270';
const layoutBucket = (l: string) => (l.startsWith('MRV') ? 'visa (MRV-A/B)' : l);

/** The conditions a picture is counted under (one row each). */
function conditionsOf(d: ManifestDocument): string[] {
  return [
    `capture: ${d.capture}`,
    `orientation: ${orientationBucket(d.orientation)}`,
    `layout: ${layoutBucket(d.layout)}`,
  ];
}

interface PictureRun {
  doc: ManifestDocument;
  graded: Graded;
  ms: number;
  cpuMs?: number;
  /** For pictures the gate refused: whether reading anyway would have got the fields right. */
  readableDespiteGate?: boolean;
  read?: string;
  /** What reading past the gate gave (refused pictures). */
  pastGate?: string;
  codes: string[];
}

export interface RealSetResult {
  table: EvalTable;
  /** Per-picture lines (tuning only: held-out failures are not for looking at while tuning). */
  details: string[];
}

/** Runs one set of the manifest through the live check and tabulates it by condition. */
export async function evaluateRealSet(
  set: DocumentSet,
  options: { now?: Date; log?: (line: string) => void } = {},
): Promise<RealSetResult> {
  const now = options.now ?? new Date();
  const manifest = loadManifest();
  const runs: PictureRun[] = [];
  const skipped: string[] = [];
  for (const doc of manifest.documents.filter((d) => d.set === set)) {
    const picture = loadPicture(doc);
    if ('skipped' in picture) {
      skipped.push(doc.id);
      continue;
    }
    const { result, ms: took, cpuMs } = await liveDocumentCheck(picture.bytes, now);
    const graded = gradeGenuine(doc.truth, result);
    let readableDespiteGate: boolean | undefined;
    let pastGate: string | undefined;
    if (graded.outcome === 'refused') {
      const anyway = await analyseDocument({ front: picture.bytes }, { readDespiteQuality: true, now });
      const r = anyway.read;
      readableDespiteGate =
        !!r &&
        r.number === doc.truth.document_number &&
        r.date_of_birth === doc.truth.date_of_birth &&
        (doc.truth.expiry_date === null || r.expiry_date === doc.truth.expiry_date);
      pastGate = r
        ? `${r.number ?? '–'} ${r.date_of_birth ?? '–'} ${r.expiry_date ?? '–'} (zone ${anyway.mrz_valid === true ? 'valid' : anyway.mrz_valid === false ? 'invalid' : 'absent'})`
        : 'nothing';
    }
    runs.push({
      doc,
      graded,
      ms: took,
      cpuMs,
      readableDespiteGate,
      pastGate,
      read: result.document
        ? `${result.document.number ?? '–'} ${result.document.date_of_birth ?? '–'} ${result.document.expiry_date ?? '–'}`
        : undefined,
      codes: result.reasonCodes,
    });
    // Held-out progress names no picture and no outcome: its failures are not for tuning on.
    options.log?.(
      set === 'heldout'
        ? `heldout: ${runs.length} measured`
        : `tuning ${doc.id}: ${graded.outcome} ${Math.round(took)} ms`,
    );
  }
  const negatives = manifest.negatives.filter((n) => n.set === set);
  let negativeRuns = 0;
  let falseValid = 0;
  for (const neg of negatives) {
    const picture = loadPicture(neg);
    if ('skipped' in picture) {
      skipped.push(neg.id);
      continue;
    }
    negativeRuns++;
    if (reportedValid((await liveDocumentCheck(picture.bytes, now)).result)) falseValid++;
  }
  const groups = new Map<string, PictureRun[]>();
  for (const r of runs) for (const c of conditionsOf(r.doc)) groups.set(c, [...(groups.get(c) ?? []), r]);
  const overlap = trainingOverlap(runs.map((r) => r.doc));
  const apart = overlap
    ? [
        row(
          '**no line found exactly in the model training lines**',
          runs.filter((r) => !overlap.exact.has(r.doc.id)),
        ),
        row(
          `**no line within ${NEAR} edits of a training line**`,
          runs.filter((r) => !overlap.near.has(r.doc.id)),
        ),
      ]
    : [];
  const rows = [row('**all**', runs), ...apart, ...[...groups.keys()].sort().map((c) => row(c, groups.get(c)!))];
  const label = set === 'heldout' ? 'REAL, HELD-OUT' : 'REAL, tuning';
  const table: EvalTable = {
    title: `Document check: ${label} (${runs.length} genuine pictures${skipped.length ? `; ${skipped.length} pictures not present, skipped` : ''})`,
    columns: COLUMNS,
    rows,
    notes: [
      'Each picture goes through documentRunner.run (the live check) with the quality gate on, as a session would; "fields read right": the stored number, birth date and expiry all equal the truth.',
      overlap
        ? `Contamination: the zone model's training lines (TESSERACT_MRZ_GIT) hold a zone line of ${overlap.exact.size} of these pictures exactly and of ${overlap.near.size} within ${NEAR} edits; the two bold rows under "all" count the others.`
        : 'Contamination rows: set TESSERACT_MRZ_GIT to the tesseractMRZ git directory to count apart the pictures whose zone lines the model was trained on.',
      `No-zone pictures (negatives): ${negativeRuns === 0 ? 'none present' : `${falseValid} of ${negativeRuns} reported a valid zone`}.`,
      ...(skipped.length
        ? [
            `Skipped (licence forbids shipping them; set DOCUMENTS_EXTERNAL_DIR to include them): ${skipped.join(', ')}.`,
          ]
        : []),
    ],
  };
  const details =
    set === 'tuning'
      ? runs.map(
          (r) =>
            `${r.doc.id}: ${r.graded.outcome}${r.graded.refusedAs ? ` ${r.graded.refusedAs}` : ''}; read ${r.read ?? 'nothing'}${r.pastGate ? `, past the gate ${r.pastGate}` : ''}; truth ${r.doc.truth.document_number} ${r.doc.truth.date_of_birth} ${r.doc.truth.expiry_date ?? '–'}; codes ${r.codes.join(',') || 'none'}; ${Math.round(r.ms)} ms`,
        )
      : [];
  return { table, details };
}
