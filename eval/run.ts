// npm run engine:eval — accuracy of the checks engine on the corpora the tests build and on real
// document pictures (data/documents/). Each check adds an Evaluator printing Markdown tables.
// Options: --check=<name>, --conditions=a,b (synthetic), --sets=heldout,tuning,synthetic,corpus,
// --details (per-picture lines, tuning only), --per-condition=N (synthetic documents per condition).
// --sets=heldout2 / heldout3 (opt-in only: the frozen held-out sets, each run once) with --dry-run lists their pictures.
import { amlEvaluator } from './aml.js';
import { documentEvaluator } from './document.js';
import { faceEvaluator, faceRealEvaluator, livenessEvaluator } from './face.js';
import { livenessPadEvaluator } from './liveness.js';

/** One check's measurement: a Markdown table (header row, then rows) and notes under it. */
export interface EvalTable {
  title: string;
  columns: string[];
  rows: string[][];
  notes?: string[];
}

export interface EvalOptions {
  conditions?: string[];
  /** Document check: which sets to measure (heldout, tuning, synthetic); all by default. */
  sets?: string[];
  /** Document check: list each tuning picture's outcome under its table. */
  details?: boolean;
  /** Document check: synthetic documents per robustness condition (default 1). */
  perCondition?: number;
  /** List what would be measured without analysing anything (document check, frozen sets). */
  dryRun?: boolean;
}

export interface Evaluator {
  name: string;
  run(options: EvalOptions): Promise<EvalTable | EvalTable[]>;
  /** Releases models and workers so the process can exit. */
  close?(): Promise<void>;
}

/** One evaluator per check; `--check=<name>` runs one. */
export const EVALUATORS: Evaluator[] = [
  documentEvaluator,
  faceRealEvaluator,
  faceEvaluator,
  livenessEvaluator,
  livenessPadEvaluator,
  amlEvaluator,
];

export const markdown = (t: EvalTable): string =>
  [
    `### ${t.title}`,
    '',
    `| ${t.columns.join(' | ')} |`,
    `|${t.columns.map(() => '---').join('|')}|`,
    ...t.rows.map((r) => `| ${r.join(' | ')} |`),
    '',
    ...(t.notes ?? []).map((n) => `- ${n}`),
  ].join('\n');

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const only = args.find((a) => a.startsWith('--check='))?.slice(8);
  const conditions = args
    .find((a) => a.startsWith('--conditions='))
    ?.slice(13)
    .split(',');
  const sets = args
    .find((a) => a.startsWith('--sets='))
    ?.slice(7)
    .split(',');
  const details = args.includes('--details');
  const perCondition = Number(args.find((a) => a.startsWith('--per-condition='))?.slice(16)) || undefined;
  const dryRun = args.includes('--dry-run');
  const started = Date.now();
  for (const evaluator of EVALUATORS.filter((e) => (!only || e.name === only) && (!dryRun || e.name === 'document'))) {
    try {
      const tables = await evaluator.run({ conditions, sets, details, perCondition, dryRun });
      for (const table of Array.isArray(tables) ? tables : [tables]) process.stdout.write(`${markdown(table)}\n\n`);
    } finally {
      await evaluator.close?.();
    }
  }
  process.stderr.write(`engine:eval took ${Math.round((Date.now() - started) / 1000)} s\n`);
}

await main();
