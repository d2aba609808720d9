import { parse as parseMrzLines } from 'mrz';

/** ICAO 9303 machine-readable zone formats by line count and length. */
export type MrzFormat = 'TD1' | 'TD2' | 'TD3';
const SHAPES: Record<MrzFormat, { lines: number; length: number }> = {
  TD1: { lines: 3, length: 30 },
  TD2: { lines: 2, length: 36 },
  TD3: { lines: 2, length: 44 },
};

/** A field covered by a check digit: [line, start, end) and the check digit's [line, column]. */
interface CheckedField {
  name: 'document_number' | 'date_of_birth' | 'expiry_date' | 'optional';
  line: number;
  start: number;
  end: number;
  digit: [number, number];
  numeric: boolean;
}
/** Positions that only ever hold letters (or the filler) and only digits: OCR confusions there are forced, not guessed. */
interface Layout {
  checked: CheckedField[];
  composite?: { digit: [number, number]; parts: [number, number, number][] };
  alpha: [number, number, number][];
  /** The name field: after its first run of three fillers only fillers follow. */
  names: [number, number, number];
}

const LAYOUTS: Record<MrzFormat, Layout> = {
  TD3: {
    checked: [
      { name: 'document_number', line: 1, start: 0, end: 9, digit: [1, 9], numeric: false },
      { name: 'date_of_birth', line: 1, start: 13, end: 19, digit: [1, 19], numeric: true },
      { name: 'expiry_date', line: 1, start: 21, end: 27, digit: [1, 27], numeric: true },
      { name: 'optional', line: 1, start: 28, end: 42, digit: [1, 42], numeric: false },
    ],
    composite: { digit: [1, 43], parts: [[1, 0, 10], [1, 13, 20], [1, 21, 43]] },
    alpha: [[0, 2, 44], [1, 10, 13]],
    names: [0, 5, 44],
  },
  TD2: {
    checked: [
      { name: 'document_number', line: 1, start: 0, end: 9, digit: [1, 9], numeric: false },
      { name: 'date_of_birth', line: 1, start: 13, end: 19, digit: [1, 19], numeric: true },
      { name: 'expiry_date', line: 1, start: 21, end: 27, digit: [1, 27], numeric: true },
    ],
    composite: { digit: [1, 35], parts: [[1, 0, 10], [1, 13, 20], [1, 21, 35]] },
    alpha: [[0, 2, 36], [1, 10, 13]],
    names: [0, 5, 36],
  },
  TD1: {
    checked: [
      { name: 'document_number', line: 0, start: 5, end: 14, digit: [0, 14], numeric: false },
      { name: 'date_of_birth', line: 1, start: 0, end: 6, digit: [1, 6], numeric: true },
      { name: 'expiry_date', line: 1, start: 8, end: 14, digit: [1, 14], numeric: true },
    ],
    composite: { digit: [1, 29], parts: [[0, 5, 30], [1, 0, 7], [1, 8, 15], [1, 18, 29]] },
    alpha: [[0, 2, 5], [1, 15, 18], [2, 0, 30]],
    names: [2, 0, 30],
  },
};

const WEIGHTS = [7, 3, 1];
const charValue = (c: string): number => (c === '<' ? 0 : c >= '0' && c <= '9' ? c.charCodeAt(0) - 48 : c.charCodeAt(0) - 55);

/** The ICAO 9303 check digit (weights 7, 3, 1; letters A=10..Z=35; filler 0). */
export function checkDigit(value: string): string {
  let sum = 0;
  for (let i = 0; i < value.length; i++) sum += charValue(value[i]) * WEIGHTS[i % 3];
  return String(sum % 10);
}

/** Letters OCR reads for digits and the other way round (OCR-B under a generic model). */
const TO_DIGIT: Record<string, string> = { O: '0', Q: '0', D: '0', I: '1', L: '1', Z: '2', S: '5', G: '6', T: '7', B: '8' };
const TO_LETTER: Record<string, string> = { '0': 'O', '1': 'I', '2': 'Z', '5': 'S', '6': 'G', '7': 'T', '8': 'B' };
/** A filler where a check digit stands (an empty optional field) counts as 0. */
const digitAt = (lines: string[], [line, column]: [number, number]) => (lines[line][column] === '<' ? '0' : lines[line][column]);

export interface MrzRepair {
  line: number;
  column: number;
  from: string;
  to: string;
  /** `check_digit`: a check digit confirmed it; `format`: the position can only hold that class of character. */
  by: 'check_digit' | 'format';
}

export interface MrzResult {
  format: MrzFormat;
  lines: string[];
  /** Every check digit (each field's and the composite) passes. */
  valid: boolean;
  failed: string[];
  repairs: MrzRepair[];
  fields: {
    document_code: string;
    issuing_country: string;
    document_number: string;
    date_of_birth?: string;
    expiry_date?: string;
    sex?: string;
    nationality: string;
    last_name?: string;
    first_name?: string;
    optional?: string;
  };
}

const setChar = (lines: string[], line: number, column: number, c: string) => {
  lines[line] = lines[line].slice(0, column) + c + lines[line].slice(column + 1);
};

/** Squeezes a misread line to its format length by growing or shrinking its longest filler run. */
export function fitLength(line: string, length: number): string {
  let out = line;
  while (out.length !== length) {
    const runs = [...out.matchAll(/<+/g)].sort((a, b) => b[0].length - a[0].length);
    const longest = runs[0];
    if (out.length > length) {
      if (!longest || longest[0].length < 2) return out.slice(0, length);
      out = out.slice(0, longest.index!) + out.slice(longest.index! + 1);
    } else {
      const at = longest ? longest.index! : out.length;
      out = out.slice(0, at) + '<' + out.slice(at);
    }
  }
  return out;
}

/** Forced repairs: digits in letter-only positions, letters in digit-only positions. */
function repairByFormat(lines: string[], layout: Layout, repairs: MrzRepair[]): void {
  const force = (line: number, column: number, map: Record<string, string>) => {
    const c = lines[line][column];
    if (map[c]) {
      repairs.push({ line, column, from: c, to: map[c], by: 'format' });
      setChar(lines, line, column, map[c]);
    }
  };
  for (const [line, start, end] of layout.alpha) for (let i = start; i < end; i++) force(line, i, TO_LETTER);
  for (const f of layout.checked) {
    if (f.numeric) for (let i = f.start; i < f.end; i++) force(f.line, i, TO_DIGIT);
    force(f.digit[0], f.digit[1], TO_DIGIT);
  }
  if (layout.composite) force(layout.composite.digit[0], layout.composite.digit[1], TO_DIGIT);
  const [line, start, end] = layout.names;
  const run = lines[line].indexOf('<<<', start);
  for (let i = run; run >= 0 && i < end; i++) {
    if (lines[line][i] !== '<') {
      repairs.push({ line, column: i, from: lines[line][i], to: '<', by: 'format' });
      setChar(lines, line, i, '<');
    }
  }
}

/**
 * An alphanumeric field whose check digit fails: tries swapping confusable characters (one,
 * then two) and keeps a repair only when exactly one candidate of the fewest swaps passes.
 */
function repairByCheckDigit(value: string, digit: string): { value: string; changed: number[] } | null {
  const positions = [...value].map((c, i) => (TO_DIGIT[c] || TO_LETTER[c] ? i : -1)).filter((i) => i >= 0);
  const swap = (s: string, i: number) => s.slice(0, i) + (TO_DIGIT[s[i]] ?? TO_LETTER[s[i]]) + s.slice(i + 1);
  const single = positions.map((i) => ({ value: swap(value, i), changed: [i] })).filter((c) => checkDigit(c.value) === digit);
  if (single.length === 1) return single[0];
  if (single.length > 1) return null;
  const double: { value: string; changed: number[] }[] = [];
  for (let a = 0; a < positions.length; a++) {
    for (let b = a + 1; b < positions.length; b++) {
      const candidate = swap(swap(value, positions[a]), positions[b]);
      if (checkDigit(candidate) === digit) double.push({ value: candidate, changed: [positions[a], positions[b]] });
    }
  }
  return double.length === 1 ? double[0] : null;
}

const slice = (lines: string[], [line, start, end]: [number, number, number]) => lines[line].slice(start, end);

function checkAll(lines: string[], layout: Layout): string[] {
  const failed: string[] = layout.checked.filter((f) => checkDigit(lines[f.line].slice(f.start, f.end)) !== digitAt(lines, f.digit)).map((f) => f.name);
  if (layout.composite) {
    const composite = layout.composite.parts.map((p) => slice(lines, p)).join('');
    if (checkDigit(composite) !== digitAt(lines, layout.composite.digit)) failed.push('composite');
  }
  return failed;
}

/**
 * A misread check digit (6 read as 0, say): when exactly one field's digit fails, the digit
 * its field computes is taken only if the composite check digit, which covers it, then passes.
 */
function repairMisreadDigit(lines: string[], layout: Layout, repairs: MrzRepair[]): void {
  const failing = layout.checked.filter((f) => checkDigit(lines[f.line].slice(f.start, f.end)) !== digitAt(lines, f.digit));
  if (!layout.composite || failing.length !== 1) return;
  const f = failing[0];
  const before = lines[f.digit[0]][f.digit[1]];
  const computed = checkDigit(lines[f.line].slice(f.start, f.end));
  setChar(lines, f.digit[0], f.digit[1], computed);
  if (checkAll(lines, layout).length === 0) repairs.push({ line: f.digit[0], column: f.digit[1], from: before, to: computed, by: 'check_digit' });
  else setChar(lines, f.digit[0], f.digit[1], before);
}

/** YYMMDD to YYYY-MM-DD: birth dates are never in the future, expiry dates are this century. */
export function mrzDate(value: string | undefined | null, kind: 'birth' | 'expiry', now = new Date()): string | undefined {
  if (!value || !/^\d{6}$/.test(value)) return undefined;
  const yy = Number(value.slice(0, 2));
  const thisYY = now.getUTCFullYear() % 100;
  const century = kind === 'birth' ? (yy > thisYY ? 1900 : 2000) : yy >= 70 ? 1900 : 2000;
  const iso = `${century + yy}-${value.slice(2, 4)}-${value.slice(4, 6)}`;
  return Number.isNaN(Date.parse(`${iso}T00:00:00Z`)) ? undefined : iso;
}

const clean = (value: string) => value.replace(/<+/g, ' ').trim();

/** The fields read from repaired lines; the `mrz` package splits names and fields by format. */
function fieldsOf(format: MrzFormat, lines: string[], now: Date): MrzResult['fields'] {
  const parsed = parseMrzLines(lines, { autocorrect: false });
  const raw = (field: string) => (parsed.details.find((d) => d.field === field)?.ranges[0] as { raw?: string } | undefined)?.raw ?? '';
  const value = (field: string) => (parsed.fields as Record<string, string | null | undefined>)[field] ?? undefined;
  const sex = lines[1][format === 'TD1' ? 7 : 20];
  const number = format === 'TD1' ? lines[0].slice(5, 14) : lines[1].slice(0, 9);
  return {
    document_code: clean(lines[0].slice(0, 2)),
    issuing_country: clean(lines[0].slice(2, 5)),
    document_number: clean(value('documentNumber') ?? number),
    date_of_birth: mrzDate(raw('birthDate'), 'birth', now),
    expiry_date: mrzDate(raw('expirationDate'), 'expiry', now),
    sex: sex === 'M' || sex === 'F' ? sex : undefined,
    nationality: clean(format === 'TD1' ? lines[1].slice(15, 18) : lines[1].slice(10, 13)),
    last_name: value('lastName') ?? undefined,
    first_name: value('firstName') ?? undefined,
    optional: clean(format === 'TD3' ? lines[1].slice(28, 42) : format === 'TD1' ? lines[0].slice(15, 30) : lines[1].slice(28, 35)) || undefined,
  };
}

/**
 * Validates and repairs MRZ lines of a known format: forced repairs by character class, then
 * swaps of confusable characters only where the field's check digit confirms them.
 */
export function readMrzLines(format: MrzFormat, input: string[], now = new Date()): MrzResult {
  const layout = LAYOUTS[format];
  const lines = input.map((l) => fitLength(l, SHAPES[format].length));
  const repairs: MrzRepair[] = [];
  repairByFormat(lines, layout, repairs);
  const beforeGuesses = [...lines];
  const forced = repairs.length;
  for (const f of layout.checked) {
    const value = lines[f.line].slice(f.start, f.end);
    const digit = digitAt(lines, f.digit);
    if (f.numeric || checkDigit(value) === digit) continue;
    const fixed = repairByCheckDigit(value, digit);
    if (!fixed) continue;
    for (const i of fixed.changed) {
      repairs.push({ line: f.line, column: f.start + i, from: value[i], to: fixed.value[i], by: 'check_digit' });
      setChar(lines, f.line, f.start + i, fixed.value[i]);
    }
  }
  repairMisreadDigit(lines, layout, repairs);
  let failed = checkAll(lines, layout);
  // A check digit has a one-in-ten chance of confirming a wrong swap: the composite must agree too.
  if (failed.includes('composite') && repairs.length > forced) {
    lines.splice(0, lines.length, ...beforeGuesses);
    repairs.splice(forced);
    repairMisreadDigit(lines, layout, repairs);
    failed = checkAll(lines, layout);
  }
  return { format, lines, valid: failed.length === 0, failed, repairs, fields: fieldsOf(format, lines, now) };
}

const MRZ_CHARS = /^[A-Z0-9<]+$/;

/**
 * Finds an MRZ among OCR'd lines: consecutive lines of MRZ characters whose lengths fit a
 * format (within a few characters of OCR slack), best valid reading first.
 */
export function findMrz(text: string, now = new Date()): MrzResult | null {
  const lines = text
    .split('\n')
    .map((l) => l.toUpperCase().replace(/[\s«]/g, '').replace(/[(\[{]/g, '<'))
    .filter((l) => l.length >= 20 && MRZ_CHARS.test(l) && (l.includes('<') || /\d{6}/.test(l)));
  const results: MrzResult[] = [];
  for (const format of ['TD3', 'TD2', 'TD1'] as MrzFormat[]) {
    const { lines: count, length } = SHAPES[format];
    for (let i = 0; i + count <= lines.length; i++) {
      const group = lines.slice(i, i + count);
      if (!group.every((l) => Math.abs(l.length - length) <= 4)) continue;
      if (!/^[A-Z]/.test(group[0]) || !/[<]/.test(group[0])) continue;
      results.push(readMrzLines(format, group, now));
    }
  }
  results.sort((a, b) => a.failed.length - b.failed.length);
  return results[0] ?? null;
}

/** The document type a document code names (ICAO 9303: P passport, I/A/C identity cards; IR/RP residence permits). */
export function documentTypeOf(code: string): string {
  if (code.startsWith('P')) return 'passport';
  if (['IR', 'RP', 'AR', 'RT'].includes(code)) return 'residence_permit';
  if (code.startsWith('D')) return 'driving_licence';
  return 'id_card';
}
