// npm run engine:eval — accuracy of the checks engine on the corpora the tests build.
// Each check adds an Evaluator; each prints one Markdown table (paste it into the README).
import { amlEvaluator } from './aml.js';
import { documentEvaluator } from './document.js';
import { faceEvaluator, faceRealEvaluator, livenessEvaluator } from './face.js';

/** One check's measurement: a Markdown table (header row, then rows) and notes under it. */
export interface EvalTable {
  title: string;
  columns: string[];
  rows: string[][];
  notes?: string[];
}

export interface Evaluator {
  name: string;
  run(options: { conditions?: string[] }): Promise<EvalTable>;
  /** Releases models and workers so the process can exit. */
  close?(): Promise<void>;
}

/** One evaluator per check; `--check=<name>` runs one. */
export const EVALUATORS: Evaluator[] = [documentEvaluator, faceRealEvaluator, faceEvaluator, livenessEvaluator, amlEvaluator];

export const markdown = (t: EvalTable): string =>
  [`### ${t.title}`, '', `| ${t.columns.join(' | ')} |`, `|${t.columns.map(() => '---').join('|')}|`, ...t.rows.map((r) => `| ${r.join(' | ')} |`), '', ...(t.notes ?? []).map((n) => `- ${n}`)].join('\n');

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const only = args.find((a) => a.startsWith('--check='))?.slice(8);
  const conditions = args.find((a) => a.startsWith('--conditions='))?.slice(13).split(',');
  for (const evaluator of EVALUATORS.filter((e) => !only || e.name === only)) {
    try {
      process.stdout.write(`${markdown(await evaluator.run({ conditions }))}\n\n`);
    } finally {
      await evaluator.close?.();
    }
  }
}

await main();
