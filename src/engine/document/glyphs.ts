import type { Grey } from './decode.js';
import { flatField } from './frame.js';
import { components } from './locate.js';
import { FORMATS } from './mrz-layouts.js';
import { type MrzResult, SILENT_TWIN, onlyUnconfirmed, settledBySecondReader, swapOf } from './mrz.js';

/**
 * The zone's own glyphs, a character classifier that needs no model: OCR-B is one fixed font, and
 * every zone holds the characters in question elsewhere (the digits of its dates and check
 * digits, the letters of its names and codes). A character no check digit can settle (a `U` amid
 * digits that may be a 0, twin `D`s whose swaps cancel) is compared with those: when it is far
 * from every glyph of the other reading and close to its own, it is what the zone reads. Cut at
 * the zone's fixed pitch from the band crop (upright, the band box with 1.5 characters' margin
 * left and right and 0.7 above and below, locate.ts).
 */

/** A glyph's size after normalising: the character height to GH rows, the pitch to GW columns. */
const GW = 16;
const GH = 24;

/** Zone characters under this height (px) are too coarse to tell one lookalike from another by shape. */
export const MIN_CHAR_HEIGHT = 12;

/** One zone character: its ink, sampled to GW x GH (0 paper, 1 ink), where the line's characters stand. */
export type Glyph = Float32Array;

interface Blob {
  left: number;
  right: number;
  top: number;
  bottom: number;
  cx: number;
  cy: number;
}

/** Otsu's threshold of a grey buffer. */
function otsu(data: Uint8Array): number {
  const histogram = new Float64Array(256);
  for (let i = 0; i < data.length; i++) histogram[data[i]]++;
  let sum = 0;
  for (let v = 0; v < 256; v++) sum += v * histogram[v];
  let below = 0;
  let sumBelow = 0;
  let best = 0;
  let threshold = 128;
  for (let t = 0; t < 256; t++) {
    below += histogram[t];
    if (below === 0 || below === data.length) continue;
    sumBelow += t * histogram[t];
    const mBelow = sumBelow / below;
    const mAbove = (sum - sumBelow) / (data.length - below);
    const between = below * (data.length - below) * (mBelow - mAbove) ** 2;
    if (between > best) {
      best = between;
      threshold = t;
    }
  }
  return threshold;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};

/** Ink blobs of one line, broken glyphs joined, left to right. */
function lineBlobs(blobs: Blob[]): Blob[] {
  const sorted = [...blobs].sort((a, b) => a.cx - b.cx);
  const out: Blob[] = [];
  for (const b of sorted) {
    const last = out.at(-1);
    const overlap = last ? Math.min(last.right, b.right) - Math.max(last.left, b.left) : -1;
    if (last && overlap > 0.4 * Math.min(last.right - last.left + 1, b.right - b.left + 1)) {
      last.left = Math.min(last.left, b.left);
      last.right = Math.max(last.right, b.right);
      last.top = Math.min(last.top, b.top);
      last.bottom = Math.max(last.bottom, b.bottom);
      last.cx = (last.left + last.right) / 2;
    } else out.push({ ...b });
  }
  return out;
}

/**
 * The blobs of a line laid on its `length` columns: the longest run of blobs spaced about one
 * pitch apart, taken to span the whole line only when it holds exactly `length` blobs or when its
 * ends, a column each, give a pitch within 5% of its blobs' own; otherwise null.
 */
function columnsOf(blobs: Blob[], length: number, pitchGuess: number): (Blob | null)[] | null {
  if (blobs.length < length * 0.8) return null;
  const steps = blobs.slice(1).map((b, i) => b.cx - blobs[i].cx);
  const near = steps.filter((s) => s > pitchGuess * 0.6 && s < pitchGuess * 1.4);
  if (near.length < length * 0.5) return null;
  const pitch = median(near);
  // The longest chain with no gap over 1.6 pitches (a line has no spaces: every column holds a character or a filler).
  let best: Blob[] = [];
  let chain: Blob[] = [];
  for (const b of blobs) {
    if (chain.length > 0 && b.cx - chain.at(-1)!.cx > pitch * 1.6) chain = [];
    chain.push(b);
    if (chain.length > best.length) best = chain;
  }
  const out = Array<Blob | null>(length).fill(null);
  if (best.length === length) {
    best.forEach((b, i) => (out[i] = b));
    return out;
  }
  const span = (best.at(-1)!.cx - best[0].cx) / (length - 1);
  if (Math.abs(span - pitch) > pitch * 0.05) return null;
  for (const b of best) {
    const at = (b.cx - best[0].cx) / span;
    const column = Math.round(at);
    if (Math.abs(at - column) > 0.3 || column < 0 || column >= length) continue;
    out[column] = out[column] ? null : b;
  }
  return out;
}

/** A glyph cut from the flattened crop around a blob: one pitch wide, from the line's cap height to its baseline. */
function sample(flat: Grey, blob: Blob, pitch: number, top: number, bottom: number, paper: number, ink: number): Glyph {
  const glyph = new Float32Array(GW * GH);
  const x0 = blob.cx - pitch / 2;
  const y0 = top;
  const sx = pitch / GW;
  const sy = (bottom - top) / GH;
  for (let gy = 0; gy < GH; gy++)
    for (let gx = 0; gx < GW; gx++) {
      let total = 0;
      let n = 0;
      for (
        let y = Math.floor(y0 + gy * sy);
        y < Math.max(Math.floor(y0 + gy * sy) + 1, Math.ceil(y0 + (gy + 1) * sy));
        y++
      )
        for (
          let x = Math.floor(x0 + gx * sx);
          x < Math.max(Math.floor(x0 + gx * sx) + 1, Math.ceil(x0 + (gx + 1) * sx));
          x++
        ) {
          const v = x >= 0 && y >= 0 && x < flat.width && y < flat.height ? flat.data[y * flat.width + x] : paper;
          total += Math.min(1, Math.max(0, (paper - v) / Math.max(paper - ink, 1)));
          n++;
        }
      glyph[gy * GW + gx] = total / n;
    }
  return blurred(glyph);
}

/**
 * A glyph softened by a [1 2 1] kernel each way: strokes of one or two pixels at small sizes
 * otherwise make half a pixel of offset between two copies of one character look like a
 * different shape.
 */
function blurred(glyph: Glyph): Glyph {
  const pass = (src: Glyph, dx: number, dy: number) => {
    const out = new Float32Array(GW * GH);
    for (let y = 0; y < GH; y++)
      for (let x = 0; x < GW; x++) {
        const at = (xx: number, yy: number) => (xx >= 0 && yy >= 0 && xx < GW && yy < GH ? src[yy * GW + xx] : 0);
        out[y * GW + x] = (at(x - dx, y - dy) + 2 * at(x, y) + at(x + dx, y + dy)) / 4;
      }
    return out;
  };
  return pass(pass(glyph, 1, 0), 0, 1);
}

/**
 * Every character of the zone's lines as a glyph (null where the line could not be laid on its
 * columns or the column held no single blob), or null when no line could.
 */
export async function zoneGlyphs(crop: Grey, charHeight: number, lines: string[]): Promise<(Glyph | null)[][] | null> {
  if (charHeight < MIN_CHAR_HEIGHT) return null;
  const flat = await flatField(crop, charHeight);
  const threshold = otsu(flat.data);
  const mask = new Uint8Array(flat.data.length);
  for (let i = 0; i < mask.length; i++) mask[i] = flat.data[i] < threshold ? 1 : 0;
  const inkLevels: number[] = [];
  for (let i = 0; i < flat.data.length; i += 7) if (mask[i]) inkLevels.push(flat.data[i]);
  const ink = inkLevels.length > 0 ? median(inkLevels) : 0;
  const paper = 255;
  const blobs: Blob[] = components(mask, flat.width, flat.height)
    .filter((c) => {
      const h = c.bottom - c.top + 1;
      const w = c.right - c.left + 1;
      return h >= charHeight * 0.3 && h <= charHeight * 1.6 && w <= charHeight * 1.3 && c.count >= 3;
    })
    .map((c) => ({ ...c, cx: (c.left + c.right) / 2, cy: (c.top + c.bottom) / 2 }));
  const length = lines[0].length;
  const margin = charHeight * 0.7;
  const pitchY = lines.length > 1 ? (crop.height - 2 * margin - charHeight) / (lines.length - 1) : 0;
  const pitchGuess = (crop.width - 3 * charHeight) / length;
  let any = false;
  const out = lines.map((_, k) => {
    // The line's blobs: those whose centre is nearest this line's expected centre, then re-centred on their own median.
    let centre = margin + k * pitchY + charHeight / 2;
    let mine: Blob[] = [];
    for (let round = 0; round < 2; round++) {
      const reach = lines.length > 1 ? pitchY / 2 : charHeight;
      mine = blobs.filter((b) => Math.abs(b.cy - centre) < reach);
      const tall = mine.filter((b) => b.bottom - b.top + 1 >= charHeight * 0.75);
      if (tall.length === 0) return Array<Glyph | null>(length).fill(null);
      centre = median(tall.map((b) => b.cy));
    }
    const laid = columnsOf(lineBlobs(mine), length, pitchGuess);
    if (!laid) return Array<Glyph | null>(length).fill(null);
    any = true;
    const placed = laid.filter((b): b is Blob => !!b);
    const pitch =
      (placed.at(-1)!.cx - placed[0].cx) / Math.max(laid.lastIndexOf(placed.at(-1)!) - laid.indexOf(placed[0]), 1);
    // Each glyph from its own cap height to its own baseline (a line skewed by a pixel or two moves no glyph in its
    // cell); a blob much shorter or taller than the line's characters (a character joined to a mark) is none, and
    // fillers are never compared.
    const heights = laid.flatMap((b, i) => (b && lines[k][i] !== '<' ? [b.bottom + 1 - b.top] : []));
    if (heights.length === 0) return Array<Glyph | null>(length).fill(null);
    const height = median(heights);
    return laid.map((b, i) =>
      b && lines[k][i] !== '<' && Math.abs(b.bottom + 1 - b.top - height) <= height * 0.2
        ? sample(flat, b, pitch, b.top - 0.5, b.bottom + 1.5, paper, ink)
        : null,
    );
  });
  if (!any) return null;
  // A line laid a column off (a character lost to the threshold, a mark taken for one) labels every glyph wrong: its
  // glyphs must mostly stand nearest a glyph of their own character elsewhere in the zone, or the line is dropped.
  const labelled = out.flatMap((row, k) =>
    row.map((g, i) => ({ g, c: lines[k][i], k })).filter((x) => x.g && x.c !== '<'),
  );
  for (const [k] of out.entries()) {
    let agree = 0;
    let asked = 0;
    for (const [i, x] of labelled.entries()) {
      if (x.k !== k || !labelled.some((y, j) => j !== i && y.c === x.c)) continue;
      let nearest = labelled[i === 0 ? 1 : 0];
      let best = Infinity;
      for (const [j, y] of labelled.entries()) {
        if (j === i) continue;
        const d = unlike(x.g!, y.g!);
        if (d < best) [best, nearest] = [d, y];
      }
      asked++;
      if (nearest.c === x.c) agree++;
    }
    if (asked < 3 || agree < asked * LINE_AGREEMENT) out[k] = out[k].map(() => null);
  }
  return out.some((row) => row.some((g) => g)) ? out : null;
}

/** Share of a line's glyphs that must stand nearest a glyph of their own character for the line to be trusted. */
const LINE_AGREEMENT = 0.85;

/** Columns and rows a glyph may be shifted by before two are compared. */
const SHIFT = 2;

/** How unlike two glyphs are (0 the same ink, 1 no ink in common), at their best shift of up to SHIFT columns and rows. */
export function unlike(a: Glyph, b: Glyph): number {
  let best = 1;
  for (let dy = -SHIFT; dy <= SHIFT; dy++)
    for (let dx = -SHIFT; dx <= SHIFT; dx++) {
      let differ = 0;
      let total = 0;
      // Columns of `a` whose shifted column lies on `b`; the others meet no ink of b (the same sums, in the same order).
      const [from, to] = [Math.max(0, -dx), Math.min(GW, GW - dx)];
      for (let y = 0; y < GH; y++) {
        const row = y * GW;
        const yy = y + dy;
        if (yy < 0 || yy >= GH) {
          for (let x = 0; x < GW; x++) {
            differ += Math.abs(a[row + x]);
            total += a[row + x];
          }
          continue;
        }
        const shifted = yy * GW + dx;
        for (let x = 0; x < GW; x++) {
          const u = a[row + x];
          const v = x >= from && x < to ? b[shifted + x] : 0;
          differ += Math.abs(u - v);
          total += u + v;
        }
      }
      if (total > 0) best = Math.min(best, differ / total);
    }
  return best;
}

/**
 * How far a character must stand from every glyph of the other reading to be taken as read:
 * at least APART, and at least MARGIN more than and SPREAD times the other reading's own spread
 * (the median distance of its glyphs to their nearest). Measured on the spent real sets' zones
 * read right (`eval/documents/glyph-calibrate.ts`): 4 of 1,640 digit glyphs stood that far from
 * their own digit's other glyphs (a thin, faint 1; a 7); D, G, I and L stood that far from 0, 6
 * and 1 in 90-100% of cases, O and U from 0 in 20-40% (OCR-B draws them alike).
 */
const APART = 0.12;
const MARGIN = 0.06;
const SPREAD = 2;

/**
 * Whether each questioned character (line, column) of the zone is what it reads, by its shape
 * against the zone's other glyphs: far from every glyph of the character it may be instead
 * (`swapOf`; at least two of them, none questioned), and nearer its own character's glyphs than
 * those when the zone holds any. False when any glyph is missing or the zone cannot show it.
 */
export function seenAsRead(
  glyphs: (Glyph | null)[][],
  lines: string[],
  questioned: { line: number; column: number }[],
  other: (c: string) => string | undefined,
): boolean {
  const asked = new Set(questioned.map((q) => `${q.line}:${q.column}`));
  const known = lines.flatMap((l, k) =>
    [...l].flatMap((c, i) => (glyphs[k][i] && !asked.has(`${k}:${i}`) ? [{ c, g: glyphs[k][i]! }] : [])),
  );
  const nearest = (g: Glyph, among: Glyph[]) => Math.min(...among.map((t) => unlike(g, t)));
  return questioned.every(({ line, column }) => {
    const g = glyphs[line]?.[column];
    const c = lines[line][column];
    const alternative = other(c);
    if (!g || !alternative) return false;
    const others = known.filter((k) => k.c === alternative).map((k) => k.g);
    if (others.length < 2) return false;
    const spread = median(
      others.map((t, i) =>
        nearest(
          t,
          others.filter((_, j) => j !== i),
        ),
      ),
    );
    const apart = nearest(g, others);
    if (apart < APART || apart < spread + MARGIN || apart < SPREAD * spread) return false;
    const own = known.filter((k) => k.c === c).map((k) => k.g);
    return own.length === 0 || nearest(g, own) < apart;
  });
}

/**
 * A zone whose only doubt is its number's unconfirmed characters, settled when the zone's own
 * glyphs show every one of them as read (`seenAsRead`): valid, the number as read. Null otherwise.
 */
export async function confirmByGlyphs(crop: Grey, charHeight: number, mrz: MrzResult): Promise<MrzResult | null> {
  if (!onlyUnconfirmed(mrz) || mrz.unconfirmed!.some((u) => u.field !== 'document_number')) return null;
  const glyphs = await zoneGlyphs(crop, charHeight, mrz.lines);
  if (!glyphs) return null;
  const questioned = mrz.unconfirmed!.flatMap((u) => u.columns.map((column) => ({ line: u.line, column })));
  return seenAsRead(glyphs, mrz.lines, questioned, swapOf) ? settledBySecondReader(mrz, 'glyphs') : null;
}

/**
 * How near a character's glyph must stand to its silent twin's glyphs to be taken for that twin:
 * within the twin's own spread plus NEAR_TWIN and NEARER_THAN_OWN nearer than to its own
 * character's glyphs; with no glyph of its own character in the zone, within CLOSE_TWIN and the
 * twin's spread plus 0.02. On the spent real sets' zones read right, no character of a silent
 * pair (379) stood that near its twin, and 94% of them stood that near their own character (what
 * a misread one would show).
 */
const NEAR_TWIN = 0.04;
const NEARER_THAN_OWN = 0.05;
const CLOSE_TWIN = 0.06;

/** Whether the glyph at (line, column) is shaped like the zone's glyphs of `twin` rather than like those of what it reads. */
function shapedAsTwin(
  glyphs: (Glyph | null)[][],
  lines: string[],
  line: number,
  column: number,
  twin: string,
): boolean {
  const g = glyphs[line][column];
  if (!g) return false;
  const c = lines[line][column];
  const of = (char: string) =>
    lines.flatMap((l, k) =>
      [...l].flatMap((x, i) => (x === char && glyphs[k][i] && !(k === line && i === column) ? [glyphs[k][i]!] : [])),
    );
  const twins = of(twin);
  if (twins.length < 2) return false;
  const nearest = (x: Glyph, among: Glyph[]) => Math.min(...among.map((t) => unlike(x, t)));
  const spread = median(
    twins.map((t, i) =>
      nearest(
        t,
        twins.filter((_, j) => j !== i),
      ),
    ),
  );
  const toTwin = nearest(g, twins);
  const own = of(c);
  if (own.length === 0) return toTwin <= CLOSE_TWIN && toTwin <= spread + 0.02;
  return toTwin <= spread + NEAR_TWIN && toTwin < nearest(g, own) - NEARER_THAN_OWN;
}

/**
 * A verified zone's number whose character of a silent pair (`8` and `S`, `5` and `Z`, `0` and
 * `U`, `1` and `L`, `6` and `G`) is shaped like the zone's glyphs of its twin: the number may be
 * the other one and no check digit can say (`KDE4BN8E` read `KDE4BNSE`). Ambiguous: review,
 * never stored.
 */
export async function numberDisputedByGlyphs(crop: Grey, charHeight: number, mrz: MrzResult): Promise<boolean> {
  const field = FORMATS[mrz.format].fields.find((f) => f.name === 'document_number');
  if (!mrz.valid || !field) return false;
  const columns = [...mrz.lines[field.line].slice(field.start, field.end)].flatMap((c, i) =>
    SILENT_TWIN[c] ? [field.start + i] : [],
  );
  if (columns.length === 0) return false;
  const glyphs = await zoneGlyphs(crop, charHeight, mrz.lines);
  if (!glyphs) return false;
  return columns.some((column) =>
    shapedAsTwin(glyphs, mrz.lines, field.line, column, SILENT_TWIN[mrz.lines[field.line][column]]),
  );
}
