import { PSM } from 'tesseract.js';
import { type Grey, sharpOf } from './decode.js';
import { forOcrPng, paperStretch } from './frame.js';
import type { ZoneBand } from './locate.js';
import { FORMATS, SHAPES } from './mrz-layouts.js';
import {
  type MrzResult,
  SILENT_TWIN,
  fitLength,
  mrzLinesOf,
  onlyUnconfirmed,
  readMrzLines,
  settledBySecondReader,
} from './mrz.js';
import { ocrMrzText } from './ocr.js';

/** The number's line of the band, from a character before it to one after, upright, as the English model gets it (~30 px characters). */
function numberImage(crop: Grey, band: ZoneBand, mrz: MrzResult): Promise<Buffer> | null {
  const field = FORMATS[mrz.format].fields.find((f) => f.name === 'document_number');
  if (!field) return null;
  const { lines, length } = SHAPES[mrz.format];
  const ch = band.charHeight;
  // The band's box has 1.5 characters' height of margin left and right, 0.7 above and below (locate.ts).
  const left = ch * 1.5;
  const textWidth = crop.width - 2 * left;
  const pitchX = textWidth / length;
  const top = ch * 0.7;
  const pitchY = lines > 1 ? (crop.height - 2 * top - ch) / (lines - 1) : 0;
  const x0 = Math.max(0, Math.round(left + (field.start - 1.5) * pitchX));
  const x1 = Math.min(crop.width, Math.round(left + (field.end + 1.5) * pitchX));
  const y0 = Math.max(0, Math.round(top + field.line * pitchY - ch * 0.45));
  const y1 = Math.min(crop.height, Math.round(top + field.line * pitchY + ch * 1.45));
  if (x1 - x0 < 8 || y1 - y0 < 8) return null;
  const region = sharpOf(crop).extract({ left: x0, top: y0, width: x1 - x0, height: y1 - y0 });
  const { multiply, add } = paperStretch(crop);
  const factor = Math.min(30 / Math.max(ch, 1), 4);
  return forOcrPng(
    region
      .resize({ width: Math.max(1, Math.round((x1 - x0) * factor)), kernel: 'cubic' })
      .linear(multiply, add)
      .extend({ top: 12, bottom: 12, left: 12, right: 12, background: '#ffffff' }),
  );
}

/**
 * OCR-B characters the English model reads as another of a different ICAO value (`0` as `O` or
 * `D`, `1` as `I` or `T`, `7` as `T`, `8` as `B`): they count towards lining the readings up, never
 * as a reading of the character (a character to settle must be seen exactly as the zone has it).
 * No silent pair is one of them.
 */
const LOOKALIKE = new Set(['0O', '0D', '0Q', '1I', '1T', '7T', '8B', '2Z', '5S'].flatMap((p) => [p, p[1] + p[0]]));

/**
 * `target` lined up in `text` by edit distance (a character the other reader inserted or dropped
 * shifts no later one; text before and after is free): for each of target's characters, the
 * character of `text` it stands against ('' where the other reader has none), when at least
 * `share` of them match; otherwise null.
 */
function alignment(text: string, target: string, share: number): string[] | null {
  const n = target.length;
  const m = text.length;
  const sub = (a: string, b: string) => (a === b ? 0 : LOOKALIKE.has(a + b) ? 0.5 : 1);
  // cost[i][j]: target's first i characters against text ending at j (any start is free).
  const cost = Array.from({ length: n + 1 }, (_, i) => Array<number>(m + 1).fill(i));
  for (let i = 1; i <= n; i++)
    for (let j = 1; j <= m; j++)
      cost[i][j] = Math.min(
        cost[i - 1][j - 1] + sub(target[i - 1], text[j - 1]),
        cost[i - 1][j] + 1,
        cost[i][j - 1] + 1,
      );
  let j = 0;
  for (let k = 1; k <= m; k++) if (cost[n][k] < cost[n][j]) j = k;
  const other = Array<string>(n).fill('');
  for (let i = n; i > 0;) {
    if (j > 0 && cost[i][j] === cost[i - 1][j - 1] + sub(target[i - 1], text[j - 1])) {
      other[i - 1] = text[j - 1];
      i--;
      j--;
    } else if (cost[i][j] === cost[i - 1][j] + 1) i--;
    else j--;
  }
  const matches = other.filter((c, i) => c === target[i] || LOOKALIKE.has(target[i] + c)).length;
  return matches >= n * share ? other : null;
}

/** The silent pairs (mrz.ts `SILENT_TWIN`) as a character and its twin: no check digit sees the swap. */
const SILENT_PAIRS = new Set(Object.entries(SILENT_TWIN).map(([c, twin]) => c + twin));

/**
 * The document number and its check digit as the English model reads them on the number's
 * stretch of its line (not the MRZ model a second time, which repeats its own misreadings),
 * lined up with the zone's: null when the stretch cannot be cut or no offset matches
 * `share` of the characters.
 */
async function numberReadAgain(
  crop: Grey,
  band: ZoneBand,
  mrz: MrzResult,
  share: number,
): Promise<{ target: string; other: string[] } | null> {
  const field = FORMATS[mrz.format].fields.find((f) => f.name === 'document_number');
  if (!field?.check) return null;
  const line = mrz.lines[field.line];
  const target = line.slice(field.start, field.end) + line[field.check[1]];
  const pending = numberImage(crop, band, mrz);
  if (!pending) return null;
  const text = (await ocrMrzText(await pending, 'eng', PSM.SINGLE_LINE)).replace(/[^A-Z0-9<]/g, '');
  const other = alignment(text, target, share);
  return other && { target, other };
}

/** Where the two readings differ, each as the zone's character then the other's. */
const differencesOf = ({ target, other }: { target: string; other: string[] }) =>
  [...target].flatMap((c, i) => (other[i] === c ? [] : [c + (other[i] ?? '')]));

/**
 * A verified zone's document number read again by the second reader. When that reading lines
 * up with the number and differs from it only in silent pairs, no check digit can say which
 * reader is right: the number is ambiguous (review, never stored). Any other difference says
 * nothing: the English model misreads OCR-B often (`0` as `D`, `ZS` as `25`), and its misreadings
 * pass a check digit by chance.
 */
export async function numberDisputed(crop: Grey, band: ZoneBand, mrz: MrzResult): Promise<boolean> {
  const field = FORMATS[mrz.format].fields.find((f) => f.name === 'document_number');
  if (!field?.check || !mrz.valid) return false;
  const number = mrz.lines[field.line].slice(field.start, field.end);
  if (![...number].some((c) => SILENT_TWIN[c])) return false;
  const again = await numberReadAgain(crop, band, mrz, 0.5);
  if (!again) return false;
  const differences = differencesOf(again);
  return differences.length > 0 && differences.every((d) => SILENT_PAIRS.has(d));
}

/** Share of the number's characters the second reader must match before it may settle one no check digit sees. */
export const CONFIRM_SHARE = 0.75;

/**
 * A zone whose every check digit passes but whose number is unconfirmed (a U, L or G amid
 * digits, or a 6 amid letters: the other reading passes the same check digits, mrz.ts) is
 * settled when the second reader lines up with the number at CONFIRM_SHARE of its characters,
 * reads each unconfirmed character exactly as the zone does, and differs nowhere in a silent
 * pair. The zone comes back valid with the number as read; otherwise null (it stays ambiguous).
 */
export async function confirmNumber(crop: Grey, band: ZoneBand, mrz: MrzResult): Promise<MrzResult | null> {
  const field = FORMATS[mrz.format].fields.find((f) => f.name === 'document_number');
  const pending = mrz.unconfirmed ?? [];
  if (!field || !onlyUnconfirmed(mrz) || pending.some((u) => u.field !== 'document_number' || u.cancelling))
    return null;
  const again = await numberReadAgain(crop, band, mrz, CONFIRM_SHARE);
  if (!again) return null;
  const seen = pending.every((u) =>
    u.columns.every((c) => again.other[c - field.start] === again.target[c - field.start]),
  );
  if (!seen || differencesOf(again).some((d) => SILENT_PAIRS.has(d))) return null;
  return settledBySecondReader(mrz);
}

/** Characters of differing readers a repair may weigh at most (2^3 - 1 combinations: each wrong one passes two check digits by chance about once in a hundred). */
const MAX_DIFFERENCES = 3;

/** The columns of each failing part of a zone: failed fields with their check digits; for a failed composite, what only the composite covers and its digit. */
function failingColumns(mrz: MrzResult): Set<string> {
  const spec = FORMATS[mrz.format];
  const out = new Set<string>();
  const add = (line: number, start: number, end: number) => {
    for (let c = start; c < end; c++) out.add(`${line}:${c}`);
  };
  const checked = spec.fields.filter((f) => f.check);
  for (const f of checked.filter((x) => mrz.failed.includes(x.name))) {
    add(f.line, f.start, f.end);
    add(f.check![0], f.check![1], f.check![1] + 1);
  }
  if (mrz.failed.includes('composite') && spec.composite) {
    const own = new Set<string>();
    for (const f of checked) {
      for (let c = f.start; c < f.end; c++) own.add(`${f.line}:${c}`);
      own.add(`${f.check![0]}:${f.check![1]}`);
    }
    for (const [line, start, end] of spec.composite.parts)
      for (let c = start; c < end; c++) if (!own.has(`${line}:${c}`)) out.add(`${line}:${c}`);
    add(spec.composite.digit[0], spec.composite.digit[1], spec.composite.digit[1] + 1);
  }
  return out;
}

/**
 * A repaired zone whose only doubt is its number's unconfirmed characters (mrz.ts) is settled when
 * the second reader's line, which the repair drew on, shows those characters as they stand.
 */
function settledAsSeen(result: MrzResult, bestOf: (line: string) => string | undefined): MrzResult {
  if (result.valid || !onlyUnconfirmed(result) || result.unconfirmed!.some((u) => u.cancelling)) return result;
  const seen = result.unconfirmed!.every((u) => {
    const line = result.lines[u.line];
    const other = bestOf(line);
    return !!other && u.columns.every((c) => other[c] === line[c]);
  });
  return seen ? settledBySecondReader(result) : result;
}

/**
 * A failing zone read again, whole, by the second reader (the English model) on the same band:
 * the MRZ model misreads a glyph it was not trained on the same way at every scale (a `8` read
 * `3` in a residence permit's optional data), where the English model, trained on other shapes,
 * may not. Where the two readers differ inside the failing parts only (a failed field and its
 * check digit; for a failed composite, what only the composite covers), the second reader's
 * characters are tried, alone and together (at most MAX_DIFFERENCES of them), and a result is
 * kept only when exactly one combination makes every check digit pass, the composite included:
 * only formats with a composite (TD1, TD2, TD3), so a changed field is always confirmed twice.
 */
export async function repairByOtherReader(image: Buffer, mrz: MrzResult, now: Date): Promise<MrzResult | null> {
  const spec = FORMATS[mrz.format];
  if (mrz.valid || !spec.composite || mrz.failed.includes('length')) return null;
  const columns = failingColumns(mrz);
  if (columns.size === 0) return null;
  const { length } = SHAPES[mrz.format];
  const other = mrzLinesOf(await ocrMrzText(image, 'eng')).map((l) => fitLength(l, length));
  // Each zone line with a failing part against the second reader's line that matches it at the most
  // columns (a filler read as one of its lookalikes matches): at least 75%, or the readers do not
  // see the same line.
  const same = (a: string, b: string | undefined) => a === b || (a === '<' && !!b && /[CKLE]/.test(b));
  const differences: { line: number; column: number; to: string }[] = [];
  const bestOf = (line: string) => {
    const matches = (o: string) => [...line].filter((c, k) => same(c, o[k])).length;
    const best = [...other].sort((a, b) => matches(b) - matches(a))[0];
    return best && matches(best) >= line.length * 0.75 ? best : undefined;
  };
  for (const [i, line] of mrz.lines.entries()) {
    if (![...columns].some((c) => c.startsWith(`${i}:`))) continue;
    const best = bestOf(line);
    if (!best) return null;
    for (let k = 0; k < line.length; k++) {
      const to = best[k];
      if (same(line[k], to) || to === '?' || !columns.has(`${i}:${k}`)) continue;
      differences.push({ line: i, column: k, to });
    }
  }
  if (differences.length === 0 || differences.length > MAX_DIFFERENCES) return null;
  const passing = new Map<string, MrzResult>();
  for (let mask = 1; mask < 1 << differences.length; mask++) {
    const lines = [...mrz.lines];
    differences.forEach((d, j) => {
      if (mask & (1 << j)) lines[d.line] = lines[d.line].slice(0, d.column) + d.to + lines[d.line].slice(d.column + 1);
    });
    const result = settledAsSeen(readMrzLines(mrz.format, lines, now), bestOf);
    if (result.valid) passing.set(JSON.stringify(result.fields), result);
  }
  if (passing.size !== 1) return null;
  const [result] = passing.values();
  const repairs = result.lines.flatMap((l, i) =>
    [...l].flatMap((c, k) =>
      c !== mrz.lines[i][k] && differences.some((d) => d.line === i && d.column === k)
        ? [{ line: i, column: k, from: mrz.lines[i][k], to: c, by: 'second_reader' as const }]
        : [],
    ),
  );
  return { ...result, repairs: [...result.repairs, ...repairs] };
}
