import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Measurement } from './load.js';
import type { Comparison, Scenario } from './scenarios.js';

export interface ComparisonResult extends Comparison {
  ratio: number;
  /** Absent when the comparison has no target. */
  pass?: boolean;
}

export interface BenchResults {
  finishedAt: string;
  machine: {
    cpus: number;
    cpuModel: string;
    node: string;
    platform: string;
    arch: string;
    totalMemoryMb: number;
    /** 1-minute load average when the run started: other work on the box skews every figure. */
    loadAverageAtStart: number;
  };
  settings: { seconds: number; warmupSeconds: number; connections: number };
  scenarios: Record<string, Measurement & { label: string }>;
  comparisons: ComparisonResult[];
}

export function machineInfo(loadAverageAtStart: number): BenchResults['machine'] {
  const cpus = os.cpus();
  return {
    cpus: cpus.length,
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    node: process.version,
    platform: os.platform(),
    arch: os.arch(),
    totalMemoryMb: Math.round(os.totalmem() / 1024 / 1024),
    loadAverageAtStart,
  };
}

/** Ratios of requests/s; a comparison whose scenarios did not run is skipped, not failed. */
export function compare(comparisons: Comparison[], measured: Record<string, Measurement>): ComparisonResult[] {
  return comparisons.flatMap((c) => {
    const num = measured[c.numerator];
    const den = measured[c.denominator];
    if (!num || !den || den.requestsPerSecond === 0) return [];
    const ratio = Math.round((num.requestsPerSecond / den.requestsPerSecond) * 1000) / 1000;
    return [{ ...c, ratio, pass: c.target === undefined ? undefined : ratio >= c.target }];
  });
}

const pad = (s: string, n: number) => s.padEnd(n);
const lpad = (s: string, n: number) => s.padStart(n);

export function formatReport(results: BenchResults, order: Scenario[]): string {
  const m = results.machine;
  const lines = [
    '',
    `machine: ${m.cpus} CPUs (${m.cpuModel}), ${m.totalMemoryMb} MB, node ${m.node} ${m.platform}/${m.arch}`,
    `busy:    load average ${m.loadAverageAtStart.toFixed(2)} at start${m.loadAverageAtStart > m.cpus / 2 ? '  (WARNING: the machine was busy; figures are unreliable)' : ''}`,
    `load:    ${results.settings.connections} connections, ${results.settings.warmupSeconds} s warm-up + ${results.settings.seconds} s measured per scenario`,
    '',
  ];
  const named = order.filter((s) => results.scenarios[s.name]);
  const width = Math.max(8, ...named.map((s) => s.label.length));
  lines.push(
    `${pad('scenario', width)}  ${lpad('req/s', 10)}  ${lpad('p50 ms', 8)}  ${lpad('p99 ms', 8)}  ${lpad('requests', 10)}`,
  );
  lines.push('-'.repeat(width + 44));
  for (const s of named) {
    const r = results.scenarios[s.name]!;
    lines.push(
      `${pad(s.label, width)}  ${lpad(r.requestsPerSecond.toFixed(0), 10)}  ${lpad(r.latencyP50Ms.toFixed(1), 8)}  ${lpad(r.latencyP99Ms.toFixed(1), 8)}  ${lpad(String(r.requests), 10)}`,
    );
  }
  // Page-speed scenarios (console-pages.ts) carry a time target: judged on p99 (with 10 runs, the slowest).
  const timed = named.filter((s) => typeof results.scenarios[s.name]!.details?.targetMs === 'number');
  if (timed.length) {
    lines.push('');
    const tw = Math.max(...timed.map((s) => s.name.length));
    for (const s of timed) {
      const r = results.scenarios[s.name]!;
      const target = r.details!.targetMs as number;
      lines.push(
        `${pad(s.name, tw)}  p50 ${r.latencyP50Ms.toFixed(0)} ms, p99 ${r.latencyP99Ms.toFixed(0)} ms  (target p99 < ${target} ms)  ${r.latencyP99Ms < target ? 'PASS' : 'ABOVE TARGET'}`,
      );
    }
  }
  if (results.comparisons.length) {
    lines.push('');
    const cw = Math.max(...results.comparisons.map((c) => c.name.length));
    for (const c of results.comparisons) {
      const verdict =
        c.target === undefined
          ? '(context, no target)'
          : `(target >= ${c.target})  ${c.pass ? 'PASS' : 'BELOW TARGET'}`;
      lines.push(`${pad(c.name, cw)}  ${c.ratio.toFixed(3)}  ${verdict}`);
    }
  }
  return lines.join('\n');
}

export function writeResults(file: string, results: BenchResults): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
}
