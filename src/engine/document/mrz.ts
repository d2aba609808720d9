import { FORMATS, type FieldSpec, type MrzFormat, SHAPES, formatOf } from './mrz-layouts.js';

export { type MrzFormat } from './mrz-layouts.js';

const WEIGHTS = [7, 3, 1];
const charValue = (c: string): number =>
  c === '<' ? 0 : c >= '0' && c <= '9' ? c.charCodeAt(0) - 48 : c.charCodeAt(0) - 55;

/** The ICAO 9303 check digit (weights 7, 3, 1; letters A=10..Z=35; filler 0). */
export function checkDigit(value: string): string {
  let sum = 0;
  for (let i = 0; i < value.length; i++) sum += charValue(value[i]) * WEIGHTS[i % 3];
  return String(sum % 10);
}

/** Letters OCR reads for digits and the other way round (OCR-B under a generic model). */
const TO_DIGIT: Record<string, string> = {
  O: '0',
  Q: '0',
  D: '0',
  U: '0',
  I: '1',
  L: '1',
  Z: '2',
  S: '5',
  G: '6',
  T: '7',
  B: '8',
};
const TO_LETTER: Record<string, string> = { '0': 'O', '1': 'I', '2': 'Z', '5': 'S', '6': 'G', '7': 'T', '8': 'B' };
/** What OCR makes of a filler `<` (its strokes read as a letter). */
const FILLER_LOOKALIKES = new Set(['K', 'L', 'C', 'E']);
const isDigit = (c: string) => c >= '0' && c <= '9';
const isLetter = (c: string) => c >= 'A' && c <= 'Z';

export interface MrzRepair {
  line: number;
  column: number;
  from: string;
  to: string;
  /** `check_digit`: the field's check digit and the composite confirmed the one candidate; `format`: the field's alphabet allows only that character; `second_reader`: the English model's character, confirmed like `check_digit`. */
  by: 'check_digit' | 'format' | 'second_reader';
}

export interface MrzResult {
  format: MrzFormat;
  lines: string[];
  /** Every check digit (each field's and the composite) passes and no field is ambiguous. */
  valid: boolean;
  /** Fields whose check digit fails, or whose value or check digit is unreadable. */
  failed: string[];
  /** Alphanumeric fields for which two or more readings pass their check digits: never stored as read. */
  ambiguous: string[];
  /**
   * Ambiguous fields that pass as read and whose only other passing readings swap a character
   * no check digit sees (U/0, L/1, G/6) amid digits: a second, independent reader that sees the
   * same characters at `columns` (of `line`) settles them (zone.ts); until then they stay ambiguous.
   */
  unconfirmed?: { field: string; line: number; columns: number[]; cancelling?: boolean }[];
  /** The number's unconfirmed characters were seen as read by the second reader (second-reader.ts `confirmNumber`). */
  numberConfirmed?: boolean;
  /** Who saw them: the English model, or the zone's own glyphs (glyphs.ts `seenAsRead`). */
  numberConfirmedBy?: 'second_reader' | 'glyphs';
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

/** Runs of fillers as OCR reads them: `<` mixed with its lookalikes, holding at least one real `<`. */
const FILLERISH_RUN = /[<KLCE]*<[<KLCE]*/g;

/**
 * Squeezes a misread line to its format length: an overlong line loses filler lookalikes (then
 * fillers) from its longest filler run, where OCR splits one `<` into two characters; a short
 * one grows its longest filler run.
 */
export function fitLength(line: string, length: number): string {
  let out = line;
  while (out.length !== length) {
    const runs = [...out.matchAll(out.length > length ? FILLERISH_RUN : /<+/g)].sort(
      (a, b) => b[0].length - a[0].length,
    );
    const longest = runs[0];
    if (out.length > length) {
      if (!longest || longest[0].length < 2) return out.slice(0, length);
      const run = longest[0];
      const lookalike = run.search(/[KLCE]/);
      const at = longest.index! + (lookalike >= 0 ? lookalike : 0);
      out = out.slice(0, at) + out.slice(at + 1);
    } else {
      // No filler run to grow: the missing characters are unknown (a `?` fails whatever field it lands in).
      if (!longest || longest[0].length < 2) return out + '?'.repeat(length - out.length);
      out = out.slice(0, longest.index!) + '<' + out.slice(longest.index!);
    }
  }
  return out;
}

/** Where a name field's trailing fillers start (-1: none found). */
function namesFillerStart(value: string): number {
  let tail = value.length;
  while (tail > 0 && (value[tail - 1] === '<' || FILLER_LOOKALIKES.has(value[tail - 1]))) tail--;
  // Lookalike letters before the run's first real filler end the name (CORINNE<<<, MICHEL<<<).
  const firstFiller = value.indexOf('<', tail);
  if (firstFiller >= 0) tail = firstFiller;
  const run = value.indexOf('<<<');
  const starts = [run, value.length - tail >= 5 ? tail : -1].filter((i) => i >= 0);
  return starts.length ? Math.min(...starts) : -1;
}

/** Decodes one field in its own alphabet (ICAO 9303 field types); records each forced change. */
function decodeField(lines: string[], f: FieldSpec, repairs: MrzRepair[]): void {
  const force = (column: number, to: string) => {
    repairs.push({ line: f.line, column, from: lines[f.line][column], to, by: 'format' });
    setChar(lines, f.line, column, to);
  };
  // Fillers: after a name's first `<<<`, or in a trailing run of five or more filler lookalikes, only
  // fillers follow; elsewhere a filler lookalike between fillers is one.
  const value = lines[f.line].slice(f.start, f.end);
  const from =
    f.kind === 'names' ? namesFillerStart(value) : f.kind === 'numeric' || f.kind === 'digit' ? -1 : value.indexOf('<');
  const fillerish = (x: string | undefined) => x === undefined || x === '<' || FILLER_LOOKALIKES.has(x);
  for (let i = Math.max(from, 0); from >= 0 && i < value.length; i++) {
    const c = value[i];
    if (c === '<') continue;
    if (f.kind === 'names' || (FILLER_LOOKALIKES.has(c) && fillerish(value[i - 1]) && fillerish(value[i + 1])))
      force(f.start + i, '<');
  }
  for (let i = f.start; i < f.end; i++) {
    const c = lines[f.line][i];
    if ((f.kind === 'numeric' || f.kind === 'digit') && TO_DIGIT[c]) force(i, TO_DIGIT[c]);
    if ((f.kind === 'alpha' || f.kind === 'names') && TO_LETTER[c]) force(i, TO_LETTER[c]);
  }
}

/** A check digit as read: a digit, `<` where ICAO allows it for an empty field, otherwise unreadable (null). */
function checkDigitAt(lines: string[], [line, column]: [number, number], emptyField: boolean): string | null {
  const c = lines[line][column];
  if (isDigit(c)) return c;
  return c === '<' && emptyField ? '0' : null;
}

/** The character a confusable one is swapped for: a letter's digit, a digit's letter. */
export const swapOf = (c: string): string | undefined => TO_DIGIT[c] ?? TO_LETTER[c];
const swapAt = (s: string, i: number) => s.slice(0, i) + swapOf(s[i]) + s.slice(i + 1);

/** Every reading of `value` over the given positions (each as read or swapped) that its check digit accepts. */
function passingReadings(value: string, positions: number[], digit: string, maxSwaps: number): string[] {
  const out: string[] = [];
  const walk = (from: number, current: string, swaps: number) => {
    if (swaps > 0 && checkDigit(current) === digit) out.push(current);
    if (swaps === maxSwaps) return;
    for (let k = from; k < positions.length; k++) walk(k + 1, swapAt(current, positions[k]), swaps + 1);
  };
  walk(0, value, 0);
  return out;
}

/** Letters whose digit twin weighs the same modulo 10 (U 30 and 0, L 21 and 1, G 16 and 6): no check digit sees the swap. */
const UNSEEN_SWAP = new Set(['U', 'L', 'G']);

/**
 * Confusable letters read amid digits (one or two letters O between digits): the read is
 * uncertain there even when the check digit passes, since two swaps can cancel. A pair holding a
 * letter no digit resembles (the CD of a French 08CD50338) is a group of letters, read as such,
 * except for a letter no check digit can tell from its digit (`NG` may be `N6`). Anywhere in the
 * number: a G, and two equal 0- or 1-shaped letters whose swaps cancel (weights 7 and 3).
 */
function uncertainPositions(value: string): number[] {
  const out: number[] = [];
  const classOf = (c: string | undefined) =>
    c === undefined ? 'edge' : isDigit(c) ? 'digit' : isLetter(c) ? 'letter' : 'other';
  for (let i = 0; i < value.length;) {
    const kind = classOf(value[i]);
    let j = i;
    while (j < value.length && classOf(value[j]) === kind) j++;
    if (kind === 'letter' && j - i <= 2 && classOf(value[i - 1]) === 'digit' && classOf(value[j]) === 'digit') {
      const letterGroup = [...value.slice(i, j)].some((c) => !TO_DIGIT[c]);
      for (let k = i; k < j; k++) if (swapOf(value[k]) && (!letterGroup || UNSEEN_SWAP.has(value[k]))) out.push(k);
    }
    i = j;
  }
  // Three or more letters shaped like 0 or 1 in a row, wherever they stand: zeros or ones the OCR read as letters
  // (a U weighs 30 and an L 21, so swapping either for 0 or 1 leaves every check digit as it was).
  for (const m of value.matchAll(/[OQDUIL]{3,}/g))
    for (let k = m.index!; k < m.index! + m[0].length; k++) if (swapOf(value[k]) && !out.includes(k)) out.push(k);
  // A G wherever it stands: OCR reads a 6 as G beside letters too (LGR30V6VJ read LGR30VGVJ), and no check digit sees it.
  for (let k = 0; k < value.length; k++) if (value[k] === 'G' && !out.includes(k)) out.push(k);
  // Twin 0-or-1-shaped letters weighed 7 and 3: OCR misreads a doubled 00 or 11 both ways at once, and the two swaps
  // cancel in every check digit (RT600XBZE read RT6OOXBZE).
  for (let p = 0; p < value.length; p += 3)
    for (let q = 1; q < value.length; q += 3)
      if (value[p] === value[q] && /[OQDI]/.test(value[p])) for (const k of [p, q]) if (!out.includes(k)) out.push(k);
  return out.sort((a, b) => a - b).slice(0, 8);
}

type Resolution =
  | { status: 'ok'; value: string }
  | { status: 'failed' }
  | { status: 'ambiguous' }
  | { status: 'unconfirmed'; value: string; positions: number[]; cancelling?: boolean };

/**
 * Silent pairs: characters OCR confuses whose ICAO values differ by a multiple of 10 (G=16 and 6,
 * S=28 and 8, Z=35 and 5, U=30 and 0, L=21 and 1), each to its twin: swapping one changes no check
 * digit, the composite's included (the number opens it, so its weights line up).
 */
export const SILENT_TWIN: Record<string, string> = Object.fromEntries(
  ['G6', 'S8', 'Z5', 'U0', 'L1'].flatMap(([letter, digit]) => [
    [letter, digit],
    [digit, letter],
  ]),
);

/** A letter and the digit it may be with no check digit seeing the swap (either way round). */
const SILENT_SWAP = new Set(['U0', 'L1', 'G6', '6G']);

/** Letters shaped like 0 or 1: amid digits they are read only when the digit reading is what passes. */
const DIGIT_SHAPED = new Set(['O', 'Q', 'D', 'U', 'I', 'L']);

/**
 * A reading that passes its check digit, as read or repaired: ambiguous when a swap of its
 * uncertain characters passes too (two swaps can cancel), unverifiable (ambiguous too: never
 * stored, never evidence of alteration) when a letter shaped like 0 or 1 stands amid digits and
 * only that letter passes. A reading that passes as read, outside a run of 0/1-shaped letters,
 * whose passing swaps are all silent ones (SILENT_SWAP) or that is unverifiable, is unconfirmed:
 * ambiguous unless a second reader sees those characters as read.
 */
function settle(value: string, digit: string, asRead: boolean): Resolution {
  const uncertain = uncertainPositions(value);
  const passing = passingReadings(value, uncertain, digit, uncertain.length);
  if (passing.length > 0) {
    const positions = uncertain.filter((i) => passing.some((p) => p[i] !== value[i]));
    const silent = positions.every((i) => SILENT_SWAP.has(value[i] + swapOf(value[i])));
    if (!asRead) return { status: 'ambiguous' };
    // Swaps that cancel (twin letters, a run of 0-shaped letters) only the characters' shapes can settle.
    return silent && !/[OQDUIL]{3,}/.test(value)
      ? { status: 'unconfirmed', value, positions }
      : { status: 'unconfirmed', value, positions, cancelling: true };
  }
  // Unverifiable, not failing: every check digit passes, so it is no evidence of alteration either. The check digit
  // already tells the letter from its digit here, so a second reader seeing the letter may settle it, as for a silent swap.
  const unverifiable = uncertain.filter((i) => DIGIT_SHAPED.has(value[i]));
  if (unverifiable.length > 0)
    return asRead && !/[OQDUIL]{3,}/.test(value)
      ? { status: 'unconfirmed', value, positions: unverifiable }
      : { status: 'ambiguous' };
  return { status: 'ok', value };
}

/**
 * An alphanumeric field under its check digit. As read and passing: settled as above. Failing:
 * confusable swaps (one, else two) are tried, a repair stands only when exactly one candidate
 * passes, and the candidate is then settled like a reading.
 */
function resolveAlnum(value: string, digit: string | null): Resolution {
  if (digit === null || /[^A-Z0-9<]/.test(value)) return { status: 'failed' };
  if (checkDigit(value) === digit) return settle(value, digit, true);
  const confusable = [...value].map((c, i) => (swapOf(c) ? i : -1)).filter((i) => i >= 0);
  const single = passingReadings(value, confusable, digit, 1);
  if (single.length > 1) return { status: 'ambiguous' };
  if (single.length === 1) return settle(single[0], digit, false);
  const double = passingReadings(value, confusable, digit, 2);
  if (double.length > 1) return { status: 'ambiguous' };
  return double.length === 1 ? settle(double[0], digit, false) : { status: 'failed' };
}

/**
 * An expiry of 31 December '99 is how several states write a document that never expires (a
 * Croatian identity card printed TRAJNO, "permanent"): taken as 2099-12-31, not as expired in
 * 1999. ICAO 9303 asks for fillers there; the states that print a date use this one.
 */
const NO_EXPIRY = '991231';

/** YYMMDD to YYYY-MM-DD: birth dates are never in the future, expiry dates are from 1970 on (`NO_EXPIRY`: 2099-12-31). */
export function mrzDate(
  value: string | undefined | null,
  kind: 'birth' | 'expiry',
  now = new Date(),
): string | undefined {
  if (!value || !/^\d{6}$/.test(value)) return undefined;
  if (kind === 'expiry' && value === NO_EXPIRY) return '2099-12-31';
  const yy = Number(value.slice(0, 2));
  const thisYY = now.getUTCFullYear() % 100;
  const century = kind === 'birth' ? (yy > thisYY ? 1900 : 2000) : yy >= 70 ? 1900 : 2000;
  const iso = `${century + yy}-${value.slice(2, 4)}-${value.slice(4, 6)}`;
  const parsed = new Date(`${iso}T00:00:00Z`);
  return !Number.isNaN(parsed.getTime()) && parsed.toISOString().startsWith(iso) ? iso : undefined;
}

/**
 * A birth date the zone's two digits put after the document's expiry belongs to the century
 * before: no document expires before its holder is born (a holder born in 1912 reads as 2012).
 */
export function birthBefore(birth: string | undefined, expiry: string | undefined): string | undefined {
  if (!birth || !expiry || birth < expiry) return birth;
  return `${Number(birth.slice(0, 4)) - 100}${birth.slice(4)}`;
}

const clean = (value: string) => value.replace(/<+/g, ' ').trim();

/** The fields read from decoded lines (names split at `<<`, fillers to spaces). */
function fieldsOf(format: MrzFormat, lines: string[], number: string, now: Date): MrzResult['fields'] {
  const spec = FORMATS[format];
  const get = (name: string) => {
    const f = spec.fields.find((x) => x.name === name);
    return f ? lines[f.line].slice(f.start, f.end) : '';
  };
  // The French card holds the surname and the given names in fields of their own.
  const names = format === 'FRA-ID' ? `${get('surname')}<<${get('given_names').replace(/<<+/g, '<')}` : get('names');
  const [last, ...given] = names.split('<<');
  const sex = get('sex');
  return {
    document_code: clean(get('document_code')),
    issuing_country: clean(get('issuing_country')),
    document_number: clean(number),
    date_of_birth: birthBefore(mrzDate(get('date_of_birth'), 'birth', now), mrzDate(get('expiry_date'), 'expiry', now)),
    expiry_date: mrzDate(get('expiry_date'), 'expiry', now),
    sex: sex === 'M' || sex === 'F' ? sex : undefined,
    nationality: clean(get('nationality')),
    last_name: clean(last) || undefined,
    first_name: clean(given.join('<')) || undefined,
    optional: clean(get('optional')) || undefined,
  };
}

/**
 * Validates lines of a known format under ICAO 9303: each field decoded in its own alphabet,
 * fillers normalised, numeric fields and check digits never guessed, alphanumeric fields
 * repaired only where their check digit and the composite confirm exactly one candidate.
 */
export function readMrzLines(format: MrzFormat, input: string[], now = new Date()): MrzResult {
  const spec = FORMATS[format];
  const lines = input.map((l) => fitLength(l.toUpperCase(), SHAPES[format].length));
  const repairs: MrzRepair[] = [];
  for (const f of spec.fields) decodeField(lines, f, repairs);
  const failed: string[] = [];
  const ambiguous: string[] = [];
  const unconfirmed: NonNullable<MrzResult['unconfirmed']> = [];
  for (const f of spec.fields.filter((x) => x.check)) {
    const value = lines[f.line].slice(f.start, f.end);
    const digit = checkDigitAt(lines, f.check!, f.name === 'optional' && /^<*$/.test(value));
    const long = f.name === 'document_number' ? longNumber(format, lines) : null;
    if (long) {
      // A long TD1 number is taken only as read: its check digit ends the overflow in the optional data.
      if (checkDigit(long) !== lines[0][15 + long.length - 9]) failed.push(f.name);
      continue;
    }
    if (f.kind === 'numeric') {
      // An expiry is always a calendar date (a birth date may not be: unknown days print as 00).
      const noDate = f.name === 'expiry_date' && !mrzDate(value, 'expiry', now);
      if (digit === null || !/^\d+$/.test(value) || checkDigit(value) !== digit || noDate) failed.push(f.name);
      continue;
    }
    // The optional data (a personal number) is stored nowhere and has its own check digit and the composite's: passing as
    // read, it stands as read; a 0/O or 1/L lookalike in it (5188L2V) leaves no stored field in doubt.
    const resolved: Resolution =
      f.name === 'optional' && digit !== null && checkDigit(value) === digit
        ? { status: 'ok', value }
        : resolveAlnum(value, digit);
    if (resolved.status === 'failed') failed.push(f.name);
    else if (resolved.status === 'ambiguous') ambiguous.push(f.name);
    else if (resolved.status === 'unconfirmed') {
      ambiguous.push(f.name);
      unconfirmed.push({
        field: f.name,
        line: f.line,
        columns: resolved.positions.map((i) => f.start + i),
        ...(resolved.cancelling ? { cancelling: true } : {}),
      });
    } else if (resolved.value !== value) {
      for (let i = 0; i < value.length; i++) {
        if (value[i] !== resolved.value[i])
          repairs.push({ line: f.line, column: f.start + i, from: value[i], to: resolved.value[i], by: 'check_digit' });
      }
      lines[f.line] = lines[f.line].slice(0, f.start) + resolved.value + lines[f.line].slice(f.end);
    }
  }
  if (spec.composite) {
    const digit = checkDigitAt(lines, spec.composite.digit, false);
    const value = spec.composite.parts.map(([line, start, end]) => lines[line].slice(start, end)).join('');
    if (digit === null || checkDigit(value) !== digit) {
      failed.push('composite');
      // A repair the composite does not confirm is undone: the field stands as read and fails.
      const guessed = repairs.filter((r) => r.by === 'check_digit');
      for (const r of guessed) {
        setChar(lines, r.line, r.column, r.from);
        const field = spec.fields.find((f) => f.line === r.line && r.column >= f.start && r.column < f.end);
        if (field && !failed.includes(field.name)) failed.push(field.name);
      }
      repairs.splice(0, repairs.length, ...repairs.filter((r) => r.by !== 'check_digit'));
    }
  }
  if (lines.some((l) => l.includes('?')) && failed.length === 0) failed.push('length');
  const numberField = spec.fields.find((f) => f.name === 'document_number')!;
  const number = longNumber(format, lines) ?? lines[numberField.line].slice(numberField.start, numberField.end);
  return {
    format,
    lines,
    valid: failed.length === 0 && ambiguous.length === 0,
    failed,
    ambiguous,
    ...(unconfirmed.length > 0 ? { unconfirmed } : {}),
    repairs,
    fields: fieldsOf(format, lines, number, now),
  };
}

/** A zone whose only doubt is its unconfirmed characters: nothing failed, and every ambiguous field is an unconfirmed one. */
export const onlyUnconfirmed = (m: MrzResult) =>
  !!m.unconfirmed?.length &&
  m.failed.length === 0 &&
  m.ambiguous.every((a) => m.unconfirmed!.some((u) => u.field === a));

/** The zone with its unconfirmed characters seen by a second reader or by the zone's own glyphs: valid, the number as read. */
export const settledBySecondReader = (m: MrzResult, by: 'second_reader' | 'glyphs' = 'second_reader'): MrzResult => ({
  ...m,
  valid: true,
  ambiguous: [],
  unconfirmed: undefined,
  numberConfirmed: true,
  numberConfirmedBy: by,
});

/** TD1 numbers longer than nine characters continue in the optional data (ICAO 9303-5 note j). */
function longNumber(format: MrzFormat, lines: string[]): string | null {
  if (format !== 'TD1' || lines[0][14] !== '<' || lines[0][15] === '<') return null;
  const rest = lines[0].slice(15, 30);
  const end = rest.indexOf('<');
  return end > 1 ? lines[0].slice(5, 14) + rest.slice(0, end - 1) : null;
}

const MRZ_CHARS = /^[A-Z0-9<]+$/;

/** OCR text to candidate zone lines: spaces dropped, filler lookalikes (`«`, brackets) to `<`. */
export function mrzLinesOf(text: string): string[] {
  return text
    .split('\n')
    .map((l) =>
      l
        .toUpperCase()
        .replace(/\s/g, '')
        .replace(/[«‹([{]/g, '<'),
    )
    .filter((l) => l.length >= 20 && MRZ_CHARS.test(l) && (l.includes('<') || /\d{6}/.test(l)));
}

/**
 * Finds a zone among OCR'd lines: consecutive lines whose lengths fit a format (within a few
 * characters of OCR slack), the reading with the fewest failures first.
 */
export function findMrz(text: string, now = new Date()): MrzResult | null {
  const lines = mrzLinesOf(text);
  const results: MrzResult[] = [];
  for (const shape of ['TD3', 'TD2', 'TD1'] as const) {
    const { lines: count, length } = SHAPES[shape];
    for (let i = 0; i + count <= lines.length; i++) {
      const group = lines.slice(i, i + count);
      if (!group.every((l) => l.length >= length - 4 && l.length <= length + slack(l))) continue;
      edgeTrims(group, length).forEach((variant, trimmed) => {
        if (!/^[A-Z]/.test(variant[0])) return;
        const result = readMrzLines(formatOf(shape, variant[0]), variant, now);
        // A trimmed reading counts only when every check digit passes as read (no character repaired).
        if (!trimmed || (result.valid && !result.repairs.some((r) => r.by === 'check_digit'))) results.push(result);
      });
    }
  }
  results.sort((a, b) => score(a) - score(b));
  return results[0] ?? null;
}

const score = (r: MrzResult) => r.failed.length * 2 + r.ambiguous.length;

/**
 * A group's lines as read, then with stray characters dropped from the ends of its overlong
 * lines: a band's edges (a card's border, a tinted stripe) read as characters shift every field
 * of a line. The band's edges are the same for all its lines, so every overlong line is trimmed
 * the same way: at its start, at its end, or at both (start first, or end first) while it stays
 * over its format's length; and only when two or more lines run over (an edge is every line's:
 * one overlong line is likelier a character read twice inside it, and a shifted line can pass
 * its check digits by chance). The lines as read come first; a trimmed reading is kept only when
 * every check digit passes without a repair (a name line, which no check digit covers, follows
 * the others' trim). One overlong line is trimmed on its own only where it shows its edge: a
 * first line that begins with anything but a letter (every document code begins with one).
 */
function edgeTrims(group: string[], length: number): string[][] {
  const trim = (l: string, ends: ('start' | 'end')[]) => {
    let out = l;
    for (const end of ends) if (out.length > length) out = end === 'start' ? out.slice(1) : out.slice(0, -1);
    return out;
  };
  // A document code begins with a letter: a first line that runs over and begins with anything else begins with
  // the band's edge (a card's border against the desk read as a 0), which the other lines may not show.
  if (group[0].length > length && !/^[A-Z]/.test(group[0]) && /^[A-Z]/.test(group[0].slice(1)))
    return [group, [group[0].slice(1), ...group.slice(1)]];
  if (group.filter((l) => l.length > length).length < 2) return [group];
  const ways: ('start' | 'end')[][] = [[], ['start'], ['end'], ['start', 'end'], ['end', 'start']];
  const variants = ways.map((ends) => group.map((l) => trim(l, ends)));
  return variants.filter((v, i) => variants.findIndex((o) => o.join('\n') === v.join('\n')) === i);
}

/** Characters a line may run over its format's length: more where a long filler run can absorb them. */
const slack = (line: string) =>
  Math.max(0, ...[...line.matchAll(FILLERISH_RUN)].map((m) => m[0].length)) >= 8 ? 10 : 4;

/** The document type a document code names (ICAO 9303: P passport, V visa, I/A/C identity cards; IR/RP residence permits). */
export function documentTypeOf(code: string): string {
  if (code.startsWith('P')) return 'passport';
  if (code.startsWith('V')) return 'visa';
  if (['IR', 'RP', 'AR', 'RT'].includes(code)) return 'residence_permit';
  if (code.startsWith('D')) return 'driving_licence';
  return 'id_card';
}
