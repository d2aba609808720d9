// The second held-out set of real document pictures (data/documents/heldout2.json), frozen for
// one run by the lead at the end of a session: `npm run engine:eval:document -- --sets=heldout2`.
// It is opt-in only (a plain `engine:eval` never runs it), and it prints the same columns as the
// first held-out report, with the pictures whose zone lines the MRZ model was trained on counted
// apart from the manifest's recorded overlap.
//
//   --sets=heldout2 --dry-run      list the pictures and whether their bytes are present; analyses nothing
//   node dist-eval/eval/documents/heldout2.js --prepare=<dir> [--mirrors=/work/.mirror]
//                                  copy the pictures that are not shipped from local git mirrors of
//                                  their repositories into <dir> (then DOCUMENTS_EXTERNAL_DIR=<dir>)
//   node dist-eval/eval/documents/heldout2.js --overlap [--git-dir=<tesseractMRZ .git>]
//                                  the zone lines' overlap with the MRZ model's training lines
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { EvalTable } from '../run.js';
import { COLUMNS, type GradedRun, gradeGenuine, reportedValid, row } from './grade.js';
import { type ManifestDocument, type ManifestNegative, documentsDir, loadPicture, sha256 } from './manifest.js';
import { NEAR, matching, readDataset } from './overlap.js';

/** Counts of a picture's zone lines found in the MRZ model's training lines (eval/documents/overlap.ts). */
export interface TrainingOverlap {
  /** Zone lines found exactly among the training lines. */
  exact_lines: number;
  /** Zone lines within NEAR edits of some training line (exact ones included). */
  near_lines: number;
}

export interface Heldout2Document extends Omit<ManifestDocument, 'set' | 'source'> {
  set: 'heldout2';
  source: ManifestDocument['source'] & { licence_file: string | null };
  overlap: TrainingOverlap;
}

/** A picture with no zone: nothing should be read from it, least of all a valid zone. */
export interface Heldout2Negative extends Omit<ManifestNegative, 'set' | 'source'> {
  set: 'heldout2';
  source: Heldout2Document['source'];
}

export interface Heldout2Manifest {
  about: string;
  frozen: string;
  overlap_method: string;
  documents: Heldout2Document[];
  negatives: Heldout2Negative[];
  excluded: { source: { repo: string; path: string; commit: string }; why: string }[];
}

/** Licences under which a picture may be shipped in this repository. */
export const SHIPPABLE_LICENCES = ['MIT', 'BSD-2-Clause', 'BSD-3-Clause', 'Apache-2.0', 'CC-BY-4.0', 'CC0-1.0'];

export function loadHeldout2(dir = documentsDir()): Heldout2Manifest {
  return JSON.parse(fs.readFileSync(path.join(dir, 'heldout2.json'), 'utf8')) as Heldout2Manifest;
}

/** The frozen entries as the seal hashes them: their manifest JSON, in manifest order. */
export const heldout2Digest = (manifest: Heldout2Manifest): string =>
  sha256(JSON.stringify({ documents: manifest.documents, negatives: manifest.negatives }));

/** data/documents/heldout2.sha256 as name → hash (`<sha256>  <name>` lines, `#` comments). */
export function readHeldout2Seal(dir = documentsDir()): Map<string, string> {
  return new Map(
    fs
      .readFileSync(path.join(dir, 'heldout2.sha256'), 'utf8')
      .split('\n')
      .filter((l) => l.trim() && !l.startsWith('#'))
      .map((l) => {
        const [hash, ...name] = l.trim().split(/\s+/);
        return [name.join(' '), hash] as const;
      }),
  );
}

/** A picture's name in the seal: its shipped file, or where it comes from. */
export const sealName = (d: { file: string | null; source: { repo: string; path: string } }): string =>
  d.file ?? `external:${d.source.repo}/${d.source.path}`;

const conditionsOf = (d: Heldout2Document): string[] => [
  `capture: ${d.capture}`,
  `layout: ${d.layout.startsWith('MRV') ? 'visa (MRV-A/B)' : d.layout}`,
  `licence: ${d.ship ? 'shipped' : 'external'}`,
];

const shortPath = (file: string) => {
  const relative = path.relative(process.cwd(), file);
  return relative.startsWith('..') ? file : relative;
};

/** The dry run: every picture with where its bytes come from; nothing is analysed. */
export function listHeldout2(dir = documentsDir()): EvalTable {
  const manifest = loadHeldout2(dir);
  const status = (e: Heldout2Document | Heldout2Negative) => {
    const picture = loadPicture(e, dir);
    return 'bytes' in picture ? `present (${shortPath(picture.from)})` : picture.skipped;
  };
  const rows = [
    ...manifest.documents.map((d) => [
      d.id,
      d.layout,
      d.capture,
      d.source.licence,
      d.ship ? 'shipped' : 'external',
      status(d),
      `${d.overlap.exact_lines} exact, ${d.overlap.near_lines} within ${NEAR} edits`,
    ]),
    ...manifest.negatives.map((n) => [
      n.id,
      'no zone',
      n.capture,
      n.source.licence,
      n.ship ? 'shipped' : 'external',
      status(n),
      '–',
    ]),
  ];
  const present = rows.filter((r) => r[5].startsWith('present')).length;
  return {
    title: `Document check: REAL, HELD-OUT 2, dry run (${rows.length} pictures, ${present} present; nothing analysed)`,
    columns: ['picture', 'layout', 'capture', 'licence', 'bytes', 'status', 'zone lines in the model training lines'],
    rows,
    notes: [
      'Dry run: lists the frozen pictures and checks their SHA-256; the engine is not run.',
      'External pictures: `node dist-eval/eval/documents/heldout2.js --prepare=<dir>` copies them from git mirrors of their repositories; then set DOCUMENTS_EXTERNAL_DIR=<dir>.',
    ],
  };
}

interface Run extends GradedRun {
  doc: Heldout2Document;
}

/** Runs the frozen set once through the live document check and tabulates it like the first held-out set. */
export async function evaluateHeldout2(
  options: { now?: Date; log?: (line: string) => void; dir?: string } = {},
): Promise<EvalTable> {
  // Imported here so that the dry run and the manifest test load no engine.
  const { liveDocumentCheck } = await import('./real.js');
  const { analyseDocument } = await import('../../src/engine/document/index.js');
  const now = options.now ?? new Date();
  const dir = options.dir ?? documentsDir();
  const manifest = loadHeldout2(dir);
  const runs: Run[] = [];
  const skipped: string[] = [];
  for (const doc of manifest.documents) {
    const picture = loadPicture(doc, dir);
    if ('skipped' in picture) {
      skipped.push(doc.id);
      continue;
    }
    const { result, ms } = await liveDocumentCheck(picture.bytes, now);
    const graded = gradeGenuine(doc.truth, result);
    let readableDespiteGate: boolean | undefined;
    if (graded.outcome === 'refused') {
      const r = (await analyseDocument({ front: picture.bytes }, { readDespiteQuality: true, now })).read;
      readableDespiteGate =
        !!r &&
        r.number === doc.truth.document_number &&
        r.date_of_birth === doc.truth.date_of_birth &&
        r.expiry_date === doc.truth.expiry_date;
    }
    runs.push({ doc, graded, ms, readableDespiteGate });
    // Progress names no picture and no outcome: this set's failures are not for tuning on.
    options.log?.(`heldout2: ${runs.length} measured`);
  }
  let negativeRuns = 0;
  let falseValid = 0;
  for (const negative of manifest.negatives) {
    const picture = loadPicture(negative, dir);
    if ('skipped' in picture) {
      skipped.push(negative.id);
      continue;
    }
    negativeRuns++;
    if (reportedValid((await liveDocumentCheck(picture.bytes, now)).result)) falseValid++;
  }
  const groups = new Map<string, Run[]>();
  for (const r of runs) for (const c of conditionsOf(r.doc)) groups.set(c, [...(groups.get(c) ?? []), r]);
  const exact = runs.filter((r) => r.doc.overlap.exact_lines > 0).length;
  const near = runs.filter((r) => r.doc.overlap.near_lines > 0).length;
  return {
    title: `Document check: REAL, HELD-OUT 2 (${runs.length} genuine pictures${skipped.length ? `; ${skipped.length} pictures not present, skipped` : ''})`,
    columns: COLUMNS,
    rows: [
      row('**all**', runs),
      row(
        '**no line found exactly in the model training lines**',
        runs.filter((r) => r.doc.overlap.exact_lines === 0),
      ),
      row(
        `**no line within ${NEAR} edits of a training line**`,
        runs.filter((r) => r.doc.overlap.near_lines === 0),
      ),
      ...[...groups.keys()].sort().map((c) => row(c, groups.get(c)!)),
    ],
    notes: [
      `Frozen ${manifest.frozen} (data/documents/heldout2.sha256); run once. Each picture goes through documentRunner.run (the live check) with the quality gate on; "fields read right": the stored number, birth date and expiry all equal the truth.`,
      `Contamination, recorded in the manifest (${manifest.overlap_method}): the zone model's training lines hold a zone line of ${exact} of these pictures exactly and of ${near} within ${NEAR} edits; the two bold rows under "all" count the others.`,
      `No-zone pictures (negatives): ${negativeRuns === 0 ? 'none present' : `${falseValid} of ${negativeRuns} reported a valid zone`}.`,
      ...(skipped.length
        ? [
            `Skipped (not shipped; run --prepare and set DOCUMENTS_EXTERNAL_DIR to include them): ${skipped.join(', ')}.`,
          ]
        : []),
    ],
  };
}

/** Copies the pictures that are not shipped from git mirrors (`<mirrors>/<owner>+<name>/repo`, bare or with a .git) into `<target>/<owner>/<name>/<path>`. */
export function prepareExternal(target: string, mirrors: string, dir = documentsDir()): string[] {
  const lines: string[] = [];
  for (const d of loadHeldout2(dir).documents.filter((e) => !e.file)) {
    const repoDir = path.join(mirrors, d.source.repo.replace('/', '+'), 'repo');
    const gitDir = fs.existsSync(path.join(repoDir, '.git')) ? path.join(repoDir, '.git') : repoDir;
    const out = path.join(target, d.source.repo, d.source.path);
    try {
      const bytes = execFileSync('git', ['--git-dir', gitDir, 'show', `${d.source.commit}:${d.source.path}`], {
        maxBuffer: 64 * 1024 * 1024,
      });
      if (sha256(bytes) !== d.sha256) {
        lines.push(`${d.id}: SHA-256 differs at ${d.source.commit.slice(0, 10)}, not copied`);
        continue;
      }
      fs.mkdirSync(path.dirname(out), { recursive: true });
      fs.writeFileSync(out, bytes);
      lines.push(`${d.id}: copied`);
    } catch {
      lines.push(`${d.id}: no mirror of ${d.source.repo} at ${d.source.commit.slice(0, 10)} under ${mirrors}`);
    }
  }
  return lines;
}

/** Each picture's zone lines against the MRZ model's training lines (what the manifest records as `overlap`). */
export function overlapOf(gitDir: string, dir = documentsDir()): Record<string, TrainingOverlap> {
  const dataset = readDataset({ gitDir });
  return Object.fromEntries(
    loadHeldout2(dir).documents.map((d) => {
      const perLine = d.mrz.map((line) => matching(dataset, [line]));
      return [
        d.id,
        {
          exact_lines: perLine.filter((m) => m.exact.length > 0).length,
          near_lines: perLine.filter((m) => m.near.length > 0).length,
        },
      ];
    }),
  );
}

function main() {
  const arg = (name: string) =>
    process.argv
      .find((a) => a.startsWith(`--${name}=`))
      ?.split('=')
      .slice(1)
      .join('=');
  const target = arg('prepare');
  if (target) {
    for (const line of prepareExternal(path.resolve(target), arg('mirrors') ?? '/work/.mirror')) console.log(line);
    return;
  }
  if (process.argv.includes('--overlap')) {
    const gitDir = arg('git-dir') ?? process.env.TESSERACT_MRZ_GIT;
    if (!gitDir) throw new Error('give --git-dir=<tesseractMRZ .git> or TESSERACT_MRZ_GIT');
    console.log(JSON.stringify(overlapOf(gitDir), null, 2));
    return;
  }
  console.log('give --prepare=<dir> [--mirrors=<dir>] or --overlap [--git-dir=<dir>]');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) main();
