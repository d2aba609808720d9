// Tuning aid: every picture of the tuning sets (tuning, the spent held-out sets, synthetic renders)
// through the live check, one line each, and with --trace each failure's steps (what every OCR
// attempt read) beside the truth's zone. Never run it on a sealed, unspent held-out set.
//
//   DOCUMENTS_EXTERNAL_DIR=<dir> node dist-eval/eval/documents/diagnose.js \
//     [--sets=tuning,heldout,heldout2,...,heldout9,synthetic (default: all spent sets)] [--per-condition=3] [--seed=26] [--only=<id part>] [--trace] [--all]
import { pathToFileURL } from 'node:url';
import { analyseDocument, stopOcr } from '../../src/engine/document/index.js';
import { ROBUSTNESS_CONDITIONS, robustnessCases } from '../../test/engine/corpus/robustness.js';
import { type Graded, type GradeTruth, gradeGenuine, percentile } from './grade.js';
import { FROZEN_SETS, type FrozenSet, loadFrozen } from './frozen.js';
import { loadManifest, loadPicture } from './manifest.js';
import { liveDocumentCheck } from './real.js';

interface Item {
  set: string;
  id: string;
  truth: GradeTruth;
  zone?: string[];
  bytes: () => Promise<Buffer>;
}

/**
 * Frozen sets sealed but not yet run once: refused here until their single run (add a new set's
 * name when it is sealed, take it out once its run is reported).
 */
const NOT_YET_RUN: readonly FrozenSet[] = [];
/** The frozen held-out sets already run once (spent): tuning data now. */
const SPENT_FROZEN = FROZEN_SETS.filter((s) => !NOT_YET_RUN.includes(s));

/** The sets that may be tuned on: tuning, synthetic renders, and the held-out sets already run once (spent). */
export const SPENT: string[] = ['tuning', 'heldout', ...SPENT_FROZEN, 'synthetic'];

/** The pictures of the named sets that are present (sealed, unspent sets are refused). */
export function items(sets: string[], perCondition: number, seed: number): Item[] {
  if (sets.some((s) => !SPENT.includes(s))) throw new Error(`only spent sets are tuning sets: ${SPENT.join(', ')}`);
  const out: Item[] = [];
  const manifest = loadManifest();
  for (const set of sets.filter((s) => s === 'tuning' || s === 'heldout'))
    for (const d of manifest.documents.filter((x) => x.set === set)) {
      const p = loadPicture(d);
      if (!('skipped' in p)) out.push({ set, id: d.id, truth: d.truth, zone: d.mrz, bytes: async () => p.bytes });
    }
  for (const set of SPENT_FROZEN.filter((x) => sets.includes(x)))
    for (const d of loadFrozen(set).documents) {
      const p = loadPicture(d);
      if (!('skipped' in p)) out.push({ set, id: d.id, truth: d.truth, zone: d.mrz, bytes: async () => p.bytes });
    }
  if (sets.includes('synthetic'))
    for (const c of robustnessCases(perCondition, ROBUSTNESS_CONDITIONS, seed))
      out.push({ set: 'synthetic', id: c.id, truth: c.truth, bytes: () => c.image() });
  return out;
}

async function main(args: string[]) {
  const opt = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
  const sets = (opt('sets') ?? SPENT.join(',')).split(',');
  const only = opt('only');
  const now = new Date();
  const tally = new Map<string, { graded: Graded; ms: number; cpuMs: number }[]>();
  for (const item of items(sets, Number(opt('per-condition') ?? 3), Number(opt('seed') ?? 26))) {
    if (only && !item.id.includes(only)) continue;
    const bytes = await item.bytes();
    const { result, ms, cpuMs } = await liveDocumentCheck(bytes, now);
    const graded = gradeGenuine(item.truth, result);
    tally.set(item.set, [...(tally.get(item.set) ?? []), { graded, ms, cpuMs }]);
    const read = result.document
      ? `${result.document.number} ${result.document.date_of_birth} ${result.document.expiry_date}`
      : '-';
    const bad = graded.outcome !== 'read_right' || graded.idInvalid || graded.wrongNumberValid;
    if (bad || args.includes('--all'))
      console.log(
        `${item.set} ${item.id}: ${graded.outcome}${graded.refusedAs ? ` ${graded.refusedAs}` : ''}${graded.idInvalid ? ' ID_INVALID' : ''}${graded.wrongNumberValid ? ' WRONG-VALID' : ''}; read ${read}; truth ${item.truth.document_number} ${item.truth.date_of_birth} ${item.truth.expiry_date}; codes ${result.reasonCodes.join(',') || 'none'}; ${Math.round(ms)} ms`,
      );
    if (bad && args.includes('--trace')) {
      if (item.zone) console.log(`  truth zone: ${item.zone.join(' / ')}`);
      const a = await analyseDocument(
        { front: bytes },
        {
          now,
          trace: (e) => console.log(`  ${e.step} ${Math.round(e.ms)} ms${e.detail ? `: ${e.detail}` : ''}`),
        },
      );
      for (const s of a.sides)
        if (s.mrz)
          console.log(
            `  kept ${s.mrz.format} ${s.mrz.lines.join(' / ')} failed ${s.mrz.failed.join(',')} ambiguous ${s.mrz.ambiguous.join(',')} char ${s.quality.metrics.char_height}`,
          );
    }
  }
  for (const [set, runs] of tally) {
    const n = (f: (g: Graded) => boolean) => runs.filter((r) => f(r.graded)).length;
    const ms = runs.map((r) => r.ms);
    console.log(
      `SUMMARY ${set}: right ${n((g) => g.outcome === 'read_right')}/${runs.length}, refused ${n((g) => g.outcome === 'refused')}, no zone ${n((g) => g.outcome === 'no_zone')}, misread ${n((g) => g.outcome === 'misread')}, ID_INVALID ${n((g) => g.idInvalid)}, wrong valid ${n((g) => g.wrongNumberValid)}; p50 ${Math.round(percentile(ms, 50) ?? 0)} ms p99 ${Math.round(percentile(ms, 99) ?? 0)} ms; CPU p50 ${Math.round(
        percentile(
          runs.map((r) => r.cpuMs),
          50,
        ) ?? 0,
      )} ms`,
    );
  }
  await stopOcr();
}

if (import.meta.url === pathToFileURL(process.argv[1]).href)
  main(process.argv.slice(2)).catch((e) => {
    console.error(e);
    process.exit(1);
  });
