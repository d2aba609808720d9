/**
 * `npm run engine:eval:aml`: AML hit/miss on the synthetic lists of data/aml, by condition,
 * at the default threshold, and the index's cost at list scale (generated entries). Prints a
 * Markdown report; the README's table comes from it.
 */
import { performance } from 'node:perf_hooks';
import { bundledListFiles, loadListFiles } from '../src/engine/aml/lists.js';
import { amlOptions } from '../src/engine/aml/runner.js';
import { buildIndex, screen } from '../src/engine/aml/screen.js';
import type { AmlEntry } from '../src/engine/aml/types.js';
import { AML_CASES } from './aml-cases.js';
import { evaluateAml } from './aml-evaluate.js';

const out = (line = '') => process.stdout.write(`${line}\n`);

/** Deterministic pseudo-random names (a small LCG) so the scale figures are repeatable. */
function generatedEntries(count: number): AmlEntry[] {
  const syllables = [
    'ka',
    'ro',
    'mi',
    'sa',
    'lev',
    'dor',
    'an',
    'el',
    'ba',
    'ri',
    'zu',
    'mo',
    'ne',
    'tha',
    'vik',
    'sha',
    'per',
    'gul',
    'ay',
    'den',
  ];
  let seed = 42;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const word = () =>
    Array.from({ length: 2 + Math.floor(next() * 2) }, () => syllables[Math.floor(next() * syllables.length)]).join('');
  return Array.from({ length: count }, (_, i) => ({
    list: 'generated',
    id: `gen-${i}`,
    kind: 'sanction' as const,
    names: [`${word()} ${word()} ${word()}`],
    weakNames: [],
    birthDates: [String(1940 + Math.floor(next() * 60))],
    nationalities: [],
  }));
}

const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))]!;

async function main(): Promise<void> {
  const started = performance.now();
  const entries = await loadListFiles(bundledListFiles());
  const index = buildIndex(entries);
  const threshold = amlOptions({ config: {}, sensitivity: null, threshold: null } as never, {
    acceptedDocumentTypes: [],
  }).threshold;
  out(
    `# AML screening on the synthetic lists (${entries.length} people: ${Object.entries(index.lists)
      .map(([l, n]) => `${l} ${n}`)
      .join(', ')}; loaded in ${(performance.now() - started).toFixed(0)} ms)`,
  );
  out(`\nDefault threshold ${threshold}.\n`);
  out('| case | variant | expected | best score | result |');
  out('|---|---|---|---|---|');
  const e = await evaluateAml(threshold, index);
  for (const r of e.results) {
    const c = r.case;
    const outcome =
      c.expect === null
        ? r.hit
          ? `FALSE HIT ${r.hit}`
          : 'true miss'
        : r.hit === c.expect
          ? 'true hit'
          : r.hit
            ? `WRONG ENTRY ${r.hit}`
            : 'MISSED';
    out(
      `| ${c.label} | ${c.condition} | ${c.expect ?? 'no hit'} | ${r.bestScore ?? '-'} (${r.bestEntry ?? '-'}) | ${outcome} |`,
    );
  }
  out('\n| variant | right / cases |');
  out('|---|---|');
  for (const t of e.byCondition) out(`| ${t.condition} | ${t.right} / ${t.total} |`);
  out(
    `\nTrue hits ${e.truePositives}/${e.positives}; false hits ${e.falsePositives} (on namesakes and unrelated people ${e.negativeHits}/${e.negatives}); precision ${(e.precision * 100).toFixed(1)}%, recall ${(e.recall * 100).toFixed(1)}%.`,
  );

  for (const size of [10_000, 100_000]) {
    const t0 = performance.now();
    const big = buildIndex([...entries, ...generatedEntries(size)]);
    const buildMs = performance.now() - t0;
    for (const c of AML_CASES) screen(big, c.subject, threshold); // warm-up: JIT, not the index, is what a first call measures
    const times = AML_CASES.map((c) => {
      const t = performance.now();
      screen(big, c.subject, threshold);
      return performance.now() - t;
    });
    const heapMb = process.memoryUsage().heapUsed / 2 ** 20;
    out(
      `\nAt ${size.toLocaleString('en')} generated entries: index built in ${buildMs.toFixed(0)} ms; one screening p50 ${percentile(times, 0.5).toFixed(2)} ms, p99 ${percentile(times, 0.99).toFixed(2)} ms; heap ${heapMb.toFixed(0)} MB.`,
    );
  }
}

await main();
