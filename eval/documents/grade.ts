import type { CheckResult } from '../../src/engine/types.js';

/** What the live document check did with one genuine picture, graded against its truth. */
export type Outcome = 'read_right' | 'refused' | 'no_zone' | 'misread';

export interface Graded {
  outcome: Outcome;
  /** The gate's reason code (IMAGE_QUALITY, IMAGE_UNREADABLE) with the problems it named. */
  refusedAs?: string;
  /** A genuine document rejected as not what it claims. */
  idInvalid: boolean;
  /** The stored number differs from the truth while the check reports the zone valid. */
  wrongNumberValid: boolean;
  /** Which of number, birth date and expiry came out right (for the per-picture listing). */
  right: { number: boolean; birth: boolean; expiry: boolean };
}

export interface GradeTruth {
  document_number: string;
  date_of_birth: string;
  expiry_date: string | null;
}

const GATE = ['IMAGE_QUALITY', 'IMAGE_UNREADABLE'];
const normalise = (value: string | undefined) => (value ?? '').toUpperCase().replace(/[^0-9A-Z]/g, '');

/** Whether the check reported some side's zone valid (its evidence, as the service stores it). */
export const reportedValid = (result: CheckResult): boolean =>
  (result.evidence ?? []).some((e) => e.analysis.mrz_valid === true);

/**
 * Grades a check result on a genuine document. Outcomes exclude each other (refused by the
 * gate, no zone read, read right, misread); the two costly errors are flags across them.
 */
export function gradeGenuine(truth: GradeTruth, result: CheckResult): Graded {
  const read = result.document;
  const right = {
    number: !!read && normalise(read.number) === normalise(truth.document_number),
    birth: !!read && read.date_of_birth === truth.date_of_birth,
    expiry: !!read && (truth.expiry_date === null ? !read.expiry_date : read.expiry_date === truth.expiry_date),
  };
  const gate = result.reasonCodes.find((c) => GATE.includes(c));
  const problems = [
    ...new Set((result.evidence ?? []).flatMap((e) => (e.analysis.problems as string[] | undefined) ?? [])),
  ];
  const outcome: Outcome = gate
    ? 'refused'
    : !read
      ? 'no_zone'
      : right.number && right.birth && right.expiry
        ? 'read_right'
        : 'misread';
  return {
    outcome,
    refusedAs: gate ? `${gate}${problems.length ? ` (${problems.join(', ')})` : ''}` : undefined,
    idInvalid: result.reasonCodes.includes('ID_INVALID'),
    wrongNumberValid: reportedValid(result) && !right.number,
    right,
  };
}

/** Nearest-rank percentile of a list of numbers (milliseconds). */
export function percentile(values: number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

export interface GradedRun {
  graded: Graded;
  ms: number;
  /** CPU time of the eval process during the check (OCR threads included): steady under other work's load, unlike `ms`. */
  cpuMs?: number;
  /** For pictures the gate refused: whether reading anyway would have got the fields right. */
  readableDespiteGate?: boolean;
}

export const COLUMNS = [
  'condition',
  'pictures',
  'fields read right',
  'refused by the gate (reason)',
  'no zone read (MRZ_NOT_FOUND)',
  'misread',
  'genuine refused ID_INVALID',
  'wrong number reported valid',
  'p50 ms',
  'p99 ms',
  'p50 CPU ms',
  'p99 CPU ms',
];

const pct = (n: number, of: number) => (of === 0 ? '–' : `${Math.round((100 * n) / of)}% (${n}/${of})`);
const ms = (v: number | null) => (v === null ? '–' : String(Math.round(v)));

/** One table row over graded runs: counts of each outcome, the gate's reasons, p50/p99 time. */
export function row(label: string, runs: GradedRun[]): string[] {
  const n = runs.length;
  const count = (f: (r: GradedRun) => boolean) => runs.filter(f).length;
  const refused = runs.filter((r) => r.graded.outcome === 'refused');
  const byCode = new Map<string, number>();
  for (const r of refused) byCode.set(r.graded.refusedAs!, (byCode.get(r.graded.refusedAs!) ?? 0) + 1);
  const codes = [...byCode].map(([code, k]) => `${k} ${code}`).join('; ');
  const wouldRead = count((r) => r.readableDespiteGate === true);
  const times = runs.map((r) => r.ms);
  const cpu = runs.flatMap((r) => (r.cpuMs === undefined ? [] : [r.cpuMs]));
  return [
    label,
    String(n),
    pct(
      count((r) => r.graded.outcome === 'read_right'),
      n,
    ),
    refused.length
      ? `${pct(refused.length, n)}: ${codes}${wouldRead ? `; ${wouldRead} readable past the gate` : ''}`
      : pct(0, n),
    pct(
      count((r) => r.graded.outcome === 'no_zone'),
      n,
    ),
    pct(
      count((r) => r.graded.outcome === 'misread'),
      n,
    ),
    pct(
      count((r) => r.graded.idInvalid),
      n,
    ),
    pct(
      count((r) => r.graded.wrongNumberValid),
      n,
    ),
    ms(percentile(times, 50)),
    ms(percentile(times, 99)),
    ms(percentile(cpu, 50)),
    ms(percentile(cpu, 99)),
  ];
}
