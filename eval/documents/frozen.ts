// The frozen held-out sets of real document pictures (data/documents/<set>.json, sealed by
// <set>.sha256): each gathered after the sets before it had been run, and frozen before the engine
// ever saw it, for one run by the lead: `npm run engine:eval:document -- --sets=heldout4`. They are
// opt-in only (a plain `engine:eval` never runs one), and print the first held-out report's
// columns, with the pictures whose zone lines the MRZ model was trained on counted apart from the
// manifest's recorded overlap.
//
//   --sets=heldout4 --dry-run      list the pictures and whether their bytes are present; analyses nothing
//   node dist-eval/eval/documents/frozen.js --prepare=<dir> [--mirrors=/work/.mirror] [--sets=heldout4]
//                                  copy the pictures that are not shipped from local git mirrors of
//                                  their repositories into <dir> (then DOCUMENTS_EXTERNAL_DIR=<dir>)
//   node dist-eval/eval/documents/frozen.js --overlap [--git-dir=<tesseractMRZ .git>] [--sets=heldout4]
//                                  the zone lines' overlap with the MRZ model's training lines
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { EvalTable } from '../run.js';
import { COLUMNS, type GradedRun, gradeGenuine, reportedValid, row } from './grade.js';
import { type ManifestDocument, type ManifestNegative, documentsDir, loadPicture, sha256 } from './manifest.js';
import { NEAR, matching, readDataset } from './overlap.js';

/** The frozen sets, oldest first: each must be independent of the first manifest and of every set before it. */
export const FROZEN_SETS = [
  'heldout2',
  'heldout3',
  'heldout4',
  'heldout5',
  'heldout6',
  'heldout7',
  'heldout8',
  'heldout9',
] as const;
export type FrozenSet = (typeof FROZEN_SETS)[number];
export const isFrozenSet = (name: string): name is FrozenSet => (FROZEN_SETS as readonly string[]).includes(name);

/** How a set is named in report titles. */
const TITLE: Record<FrozenSet, string> = {
  heldout2: 'HELD-OUT 2',
  heldout3: 'HELD-OUT 3',
  heldout4: 'HELD-OUT 4',
  heldout5: 'HELD-OUT 5',
  heldout6: 'HELD-OUT 6',
  heldout7: 'HELD-OUT 7',
  heldout8: 'HELD-OUT 8',
  heldout9: 'HELD-OUT 9',
};

/** Counts of a picture's zone lines found in the MRZ model's training lines (eval/documents/overlap.ts). */
export interface TrainingOverlap {
  /** Zone lines found exactly among the training lines. */
  exact_lines: number;
  /** Zone lines within NEAR edits of some training line (exact ones included). */
  near_lines: number;
}

export interface FrozenDocument extends Omit<ManifestDocument, 'set' | 'source'> {
  set: FrozenSet;
  source: ManifestDocument['source'] & { licence_file: string | null };
  overlap: TrainingOverlap;
}

/** A picture with no zone: nothing should be read from it, least of all a valid zone. */
export interface FrozenNegative extends Omit<ManifestNegative, 'set' | 'source'> {
  set: FrozenSet;
  source: FrozenDocument['source'];
}

export interface FrozenManifest {
  about: string;
  frozen: string;
  overlap_method: string;
  documents: FrozenDocument[];
  negatives: FrozenNegative[];
  excluded: { source: { repo: string; path: string; commit: string }; why: string }[];
}

/** Licences under which a picture may be shipped in this repository. */
export const SHIPPABLE_LICENCES = ['MIT', 'BSD-2-Clause', 'BSD-3-Clause', 'Apache-2.0', 'CC-BY-4.0', 'CC0-1.0'];

export function loadFrozen(set: FrozenSet, dir = documentsDir()): FrozenManifest {
  return JSON.parse(fs.readFileSync(path.join(dir, `${set}.json`), 'utf8')) as FrozenManifest;
}

/** The frozen entries as the seal hashes them: their manifest JSON, in manifest order. */
export const frozenDigest = (manifest: FrozenManifest): string =>
  sha256(JSON.stringify({ documents: manifest.documents, negatives: manifest.negatives }));

/** The seal's name for the entries' digest. */
export const digestName = (set: FrozenSet): string => `${set}.json#documents`;

/** data/documents/<set>.sha256 as name → hash (`<sha256>  <name>` lines, `#` comments). */
export function readFrozenSeal(set: FrozenSet, dir = documentsDir()): Map<string, string> {
  return new Map(
    fs
      .readFileSync(path.join(dir, `${set}.sha256`), 'utf8')
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

const conditionsOf = (d: FrozenDocument): string[] => [
  `capture: ${d.capture}`,
  `layout: ${d.layout.startsWith('MRV') ? 'visa (MRV-A/B)' : d.layout}`,
  `licence: ${d.ship ? 'shipped' : 'external'}`,
];

const shortPath = (file: string) => {
  const relative = path.relative(process.cwd(), file);
  return relative.startsWith('..') ? file : relative;
};

/** The dry run: every picture of a set with where its bytes come from; nothing is analysed. */
export function listFrozen(set: FrozenSet, dir = documentsDir()): EvalTable {
  const manifest = loadFrozen(set, dir);
  const status = (e: FrozenDocument | FrozenNegative) => {
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
    title: `Document check: REAL, ${TITLE[set]}, dry run (${rows.length} pictures, ${present} present; nothing analysed)`,
    columns: ['picture', 'layout', 'capture', 'licence', 'bytes', 'status', 'zone lines in the model training lines'],
    rows,
    notes: [
      'Dry run: lists the frozen pictures and checks their SHA-256; the engine is not run.',
      `External pictures: \`node dist-eval/eval/documents/frozen.js --prepare=<dir> --sets=${set}\` copies them from git mirrors of their repositories; then set DOCUMENTS_EXTERNAL_DIR=<dir>.`,
    ],
  };
}

interface Run extends GradedRun {
  doc: FrozenDocument;
}

/** Runs a frozen set once through the live document check and tabulates it like the first held-out set. */
export async function evaluateFrozen(
  set: FrozenSet,
  options: { now?: Date; log?: (line: string) => void; dir?: string } = {},
): Promise<EvalTable> {
  // Imported here so that the dry run and the manifest test load no engine.
  const { liveDocumentCheck } = await import('./real.js');
  const { analyseDocument } = await import('../../src/engine/document/index.js');
  const now = options.now ?? new Date();
  const dir = options.dir ?? documentsDir();
  const manifest = loadFrozen(set, dir);
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
    options.log?.(`${set}: ${runs.length} measured`);
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
    title: `Document check: REAL, ${TITLE[set]} (${runs.length} genuine pictures${skipped.length ? `; ${skipped.length} pictures not present, skipped` : ''})`,
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
      `Frozen ${manifest.frozen} (data/documents/${set}.sha256); run once. Each picture goes through documentRunner.run (the live check) with the quality gate on; "fields read right": the stored number, birth date and expiry all equal the truth.`,
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

/**
 * Copies the sets' pictures that are not shipped from git mirrors (`<mirrors>/<owner>+<name>/repo`,
 * bare or with a .git) into `<target>/<owner>/<name>/<path>`, each checked against its SHA-256.
 */
export function prepareExternal(
  target: string,
  mirrors: string,
  sets: readonly FrozenSet[] = FROZEN_SETS,
  dir = documentsDir(),
): string[] {
  const lines: string[] = [];
  for (const set of sets) {
    const manifest = loadFrozen(set, dir);
    for (const d of [...manifest.documents, ...manifest.negatives].filter((e) => !e.file)) {
      const repoDir = path.join(mirrors, d.source.repo.replace('/', '+'), 'repo');
      const gitDir = fs.existsSync(path.join(repoDir, '.git')) ? path.join(repoDir, '.git') : repoDir;
      const out = path.join(target, d.source.repo, d.source.path);
      try {
        const bytes = execFileSync('git', ['--git-dir', gitDir, 'show', `${d.source.commit}:${d.source.path}`], {
          maxBuffer: 64 * 1024 * 1024,
          stdio: ['ignore', 'pipe', 'ignore'],
        });
        if (sha256(bytes) !== d.sha256) {
          lines.push(`${set} ${d.id}: SHA-256 differs at ${d.source.commit.slice(0, 10)}, not copied`);
          continue;
        }
        fs.mkdirSync(path.dirname(out), { recursive: true });
        fs.writeFileSync(out, bytes);
        lines.push(`${set} ${d.id}: copied`);
      } catch {
        lines.push(`${set} ${d.id}: no mirror of ${d.source.repo} at ${d.source.commit.slice(0, 10)} under ${mirrors}`);
      }
    }
  }
  return lines;
}

/** Each picture's zone lines against the MRZ model's training lines (what the manifest records as `overlap`). */
export function overlapOf(set: FrozenSet, gitDir: string, dir = documentsDir()): Record<string, TrainingOverlap> {
  const dataset = readDataset({ gitDir });
  return Object.fromEntries(
    loadFrozen(set, dir).documents.map((d) => {
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

/** The command line (see the top of this file); `defaultSets` when no --sets= is given. */
export function main(argv = process.argv, defaultSets: readonly FrozenSet[] = FROZEN_SETS): void {
  const arg = (name: string) =>
    argv
      .find((a) => a.startsWith(`--${name}=`))
      ?.split('=')
      .slice(1)
      .join('=');
  const named = arg('sets')?.split(',');
  const unknown = named?.filter((s) => !isFrozenSet(s)) ?? [];
  if (unknown.length) throw new Error(`not a frozen set: ${unknown.join(', ')} (known: ${FROZEN_SETS.join(', ')})`);
  const sets = named ? named.filter(isFrozenSet) : defaultSets;
  const target = arg('prepare');
  if (target) {
    for (const line of prepareExternal(path.resolve(target), arg('mirrors') ?? '/work/.mirror', sets))
      console.log(line);
    return;
  }
  if (argv.includes('--overlap')) {
    const gitDir = arg('git-dir') ?? process.env.TESSERACT_MRZ_GIT;
    if (!gitDir) throw new Error('give --git-dir=<tesseractMRZ .git> or TESSERACT_MRZ_GIT');
    const bySet = Object.fromEntries(sets.map((s) => [s, overlapOf(s, gitDir)]));
    console.log(JSON.stringify(sets.length === 1 ? bySet[sets[0]] : bySet, null, 2));
    return;
  }
  console.log(
    'give --prepare=<dir> [--mirrors=<dir>] [--sets=<set,...>] or --overlap [--git-dir=<dir>] [--sets=<set,...>]',
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) main();
