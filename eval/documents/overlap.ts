// Contamination check: does Doubango's MRZ training set (DoubangoTelecom/tesseractMRZ,
// dataset/*.gt.txt, ~7,000 zone lines from Google image search) contain the zone lines of our
// held-out pictures? Compares the manifest's typed-in zone lines (never the pictures) with the
// dataset's ground truth, exactly and within a small edit distance, and prints only counts and
// the held-out ids that overlap.
//
//   node dist-eval/eval/documents/overlap.js --git-dir=/work/.mirror/DoubangoTelecom+tesseractMRZ/repo/.git
//   node dist-eval/eval/documents/overlap.js --dataset=<a checkout's dataset/ folder>
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadManifest } from './manifest.js';

/** Lines within this many edits of a held-out zone line count as the same line (OCR'd or retyped ground truth). */
export const NEAR = 2;

/** One ground-truth line of the dataset and the file it labels. */
export interface DatasetLine {
  file: string;
  text: string;
}

/** Levenshtein distance of a and b, or `limit + 1` as soon as it must exceed `limit` (banded). */
export function editDistance(a: string, b: string, limit = NEAR): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost);
      rowMin = Math.min(rowMin, current[j]);
    }
    if (rowMin > limit) return limit + 1;
    previous = current;
  }
  return previous[b.length];
}

const clean = (line: string) => line.trim().toUpperCase().replace(/\s+/g, '');

/** The dataset's ground-truth lines, from a folder of `.gt.txt` files or from the repository's git directory. */
export function readDataset(source: { dataset?: string; gitDir?: string }): DatasetLine[] {
  if (source.dataset) {
    const dir = source.dataset;
    return fs
      .readdirSync(dir)
      .filter((f) => f.endsWith('.gt.txt'))
      .map((f) => ({ file: f, text: clean(fs.readFileSync(path.join(dir, f), 'utf8')) }));
  }
  if (!source.gitDir) throw new Error('give --dataset=<folder> or --git-dir=<tesseractMRZ .git>');
  const git = (args: string[], input?: string) =>
    execFileSync('git', ['--git-dir', source.gitDir!, ...args], { input, maxBuffer: 256 * 1024 * 1024 }).toString(
      'utf8',
    );
  const entries = git(['ls-tree', '-r', 'HEAD', 'dataset/'])
    .split('\n')
    .map((l) => l.match(/^\d+ blob ([0-9a-f]+)\t(.+\.gt\.txt)$/))
    .filter((m): m is RegExpMatchArray => !!m);
  // One `cat-file --batch` for all blobs: "<sha> blob <size>\n<content>\n" each.
  const out = execFileSync('git', ['--git-dir', source.gitDir, 'cat-file', '--batch'], {
    input: entries.map((m) => m[1]).join('\n') + '\n',
    maxBuffer: 256 * 1024 * 1024,
  });
  const lines: DatasetLine[] = [];
  let at = 0;
  for (const m of entries) {
    const headerEnd = out.indexOf(0x0a, at);
    const size = Number(out.subarray(at, headerEnd).toString('utf8').split(' ')[2]);
    lines.push({
      file: path.basename(m[2]),
      text: clean(out.subarray(headerEnd + 1, headerEnd + 1 + size).toString('utf8')),
    });
    at = headerEnd + 1 + size + 1;
  }
  return lines;
}

/** The zone lines of one manifest set, by picture id. */
export function zoneLines(set: 'heldout' | 'tuning'): Map<string, string[]> {
  return new Map(
    loadManifest()
      .documents.filter((d) => d.set === set)
      .map((d) => [d.id, d.mrz.map(clean)]),
  );
}

/** Dataset lines within NEAR edits of any of `lines` (exact matches included). */
export function matching(dataset: DatasetLine[], lines: string[]): { exact: DatasetLine[]; near: DatasetLine[] } {
  const exact: DatasetLine[] = [];
  const near: DatasetLine[] = [];
  for (const d of dataset)
    for (const l of lines) {
      const distance = editDistance(d.text, l);
      if (distance === 0) exact.push(d);
      if (distance <= NEAR) {
        near.push(d);
        break;
      }
    }
  return { exact, near };
}

function main() {
  const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
  const dataset = readDataset({ dataset: arg('dataset'), gitDir: arg('git-dir') ?? process.env.TESSERACT_MRZ_GIT });
  const heldout = zoneLines('heldout');
  let exactLines = 0;
  let nearLines = 0;
  let allLines = 0;
  const exactIds: string[] = [];
  const nearIds: string[] = [];
  for (const [id, lines] of heldout) {
    let anyExact = false;
    let anyNear = false;
    for (const line of lines) {
      allLines++;
      const m = matching(dataset, [line]);
      if (m.exact.length) exactLines++;
      if (m.near.length) nearLines++;
      anyExact ||= m.exact.length > 0;
      anyNear ||= m.near.length > 0;
    }
    if (anyExact) exactIds.push(id);
    if (anyNear) nearIds.push(id);
  }
  const allHeldout = [...heldout.values()].flat();
  const contaminated = matching(dataset, allHeldout).near.length;
  console.log(`dataset: ${dataset.length} ground-truth lines`);
  console.log(`held-out: ${heldout.size} pictures, ${allLines} zone lines`);
  console.log(`held-out zone lines found exactly in the dataset: ${exactLines}; within ${NEAR} edits: ${nearLines}`);
  console.log(`held-out pictures with a line found exactly: ${exactIds.length} (${exactIds.join(', ') || 'none'})`);
  console.log(
    `held-out pictures with a line within ${NEAR} edits: ${nearIds.length} (${nearIds.join(', ') || 'none'})`,
  );
  console.log(`held-out pictures with no overlap: ${heldout.size - nearIds.length}`);
  console.log(
    `dataset lines within ${NEAR} edits of some held-out zone line (excluded from line tuning): ${contaminated}`,
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) main();
