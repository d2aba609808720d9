import sharp from 'sharp';
import { parabola } from './bow.js';
import { type Grey, sharpOf } from './decode.js';

/** The copy the layout is found on: small enough to be cheap, large enough for ~4 px characters. */
const SMALL = 1000;
/** How much darker than its neighbourhood a pixel must be to count as ink. */
const INK_CONTRAST = 22;
/** How much taller than the page's median text a zone line may be. */
const ZONE_TO_TEXT = 5;
/**
 * A zone line may always stand this share of the image's shorter side, however small the page's
 * median "text" (a card filling the frame prints its zone characters at about 4% of its height;
 * the median of a page covered in microprint is the microprint's, a fifth of that or less).
 */
const ZONE_OF_FRAME = 0.06;

/** A machine-readable zone's band: two or three long lines of equal length, stacked at a character's pitch. */
export interface ZoneBand {
  /** Degrees (sharp, clockwise) that turn the working copy so the zone's lines run horizontally. */
  rotation: number;
  /** The band in the working copy after that rotation. */
  box: { left: number; top: number; width: number; height: number };
  lines: number;
  /** Ink height of one zone line in working-copy pixels: the zone's character height. */
  charHeight: number;
  /** More of the document's text lies above the band than below (the zone is at its foot). */
  upright: boolean;
}

interface Component {
  left: number;
  top: number;
  right: number;
  bottom: number;
  count: number;
  /** A line joined from pieces: the height of its widest piece (the chain's box also spans the pieces' offsets). */
  inkHeight?: number;
  /** A bowed line (a bent page): the height of its characters, its box's less the bow (`bowOf`). */
  bowedHeight?: number;
}

/**
 * Pixels a mask marks. Pixel loops over typed arrays are indexed: a for-of allocated an iterator
 * result a pixel until the loop was optimised (about 28 MB of garbage a page, heap sampling).
 */
function inkPixels(mask: Uint8Array): number {
  let n = 0;
  for (let i = 0; i < mask.length; i++) n += mask[i];
  return n;
}

/** Connected components of a binary image (8-connected runs, union-find); bounding boxes and sizes. */
export function components(mask: Uint8Array, width: number, height: number): Component[] {
  const parent: number[] = [];
  const find = (a: number): number => {
    while (parent[a] !== a) a = parent[a] = parent[parent[a]];
    return a;
  };
  const runs: { y: number; x0: number; x1: number; id: number }[] = [];
  let previous: typeof runs = [];
  for (let y = 0; y < height; y++) {
    const current: typeof runs = [];
    // The previous row's runs, left to right: those ending left of a run end left of every later run too.
    let first = 0;
    for (let x = 0; x < width;) {
      if (!mask[y * width + x]) {
        x++;
        continue;
      }
      const x0 = x;
      while (x < width && mask[y * width + x]) x++;
      const run = { y, x0, x1: x - 1, id: parent.length };
      parent.push(run.id);
      while (first < previous.length && previous[first]!.x1 < run.x0 - 1) first++;
      for (let i = first; i < previous.length && previous[i]!.x0 <= run.x1 + 1; i++)
        parent[find(previous[i]!.id)] = find(run.id);
      current.push(run);
    }
    runs.push(...current);
    previous = current;
  }
  const byRoot = new Map<number, Component>();
  for (const r of runs) {
    const root = find(r.id);
    const c = byRoot.get(root);
    if (!c) byRoot.set(root, { left: r.x0, top: r.y, right: r.x1, bottom: r.y, count: r.x1 - r.x0 + 1 });
    else {
      c.left = Math.min(c.left, r.x0);
      c.right = Math.max(c.right, r.x1);
      c.bottom = Math.max(c.bottom, r.y);
      c.count += r.x1 - r.x0 + 1;
    }
  }
  return [...byRoot.values()];
}

/** How ink is told from paper: the contrast it needs, and how far a small image may be enlarged first. */
export interface InkOptions {
  contrast: number;
  enlarge: number;
}

/**
 * The settings tried in turn (measured on the tuning set and renders): each finds zones the
 * others miss (faint scans need less contrast; small scans lose their strokes unless enlarged).
 */
export const INK_SETTINGS: InkOptions[] = [
  { contrast: INK_CONTRAST, enlarge: 1 },
  { contrast: 28, enlarge: 3 },
  { contrast: 16, enlarge: 1.5 },
];

/** Dark ink against its neighbourhood (a local-mean threshold on a denoised copy). */
async function inkOf(
  grey: Grey,
  options: InkOptions,
): Promise<{ mask: Uint8Array; width: number; height: number; scale: number }> {
  // Small scans may be enlarged (still within SMALL) so the denoising keeps their strokes.
  const factor = Math.min(SMALL / Math.max(grey.width, grey.height), options.enlarge);
  const small = await sharpOf(grey)
    .resize({
      width: Math.max(1, Math.round(grey.width * factor)),
      height: Math.max(1, Math.round(grey.height * factor)),
      fit: 'fill',
    })
    .median(3)
    .raw()
    .toBuffer({ resolveWithObject: true });
  const { width, height } = small.info;
  const background = await sharp(small.data, { raw: { width, height, channels: 1 } })
    .toColourspace('b-w')
    .blur(Math.max(3, Math.max(width, height) / 120))
    .raw()
    .toBuffer();
  const mask = new Uint8Array(width * height);
  for (let i = 0; i < mask.length; i++) mask[i] = small.data[i] + options.contrast < background[i] ? 1 : 0;
  return { mask, width, height, scale: width / grey.width };
}

/**
 * The directions the text lines may run in (degrees, -90 to 90), best first: the angle whose
 * projection stacks the points into the fewest rows (the largest sum of squared row counts),
 * in 2° steps then finer around each peak. A second peak at least 20° from the first is kept
 * as a fallback (a desk's grain or a screen's edge can outscore the text).
 */
function textAngles(xs: Float64Array, ys: Float64Array, diagonal: number, bin: number): number[] {
  const bins = new Int32Array(Math.ceil(diagonal / bin) + 4);
  const offset = Math.ceil(diagonal / 2 / bin) + 2;
  const score = (degrees: number) => {
    const t = (degrees * Math.PI) / 180;
    const s = Math.sin(t) / bin;
    const c = Math.cos(t) / bin;
    bins.fill(0);
    for (let i = 0; i < xs.length; i++) bins[Math.round(-xs[i] * s + ys[i] * c) + offset]++;
    let sum = 0;
    for (let i = 0; i < bins.length; i++) sum += bins[i] * bins[i];
    return sum;
  };
  const coarse: { angle: number; score: number }[] = [];
  for (let a = -90; a < 90; a += 2) coarse.push({ angle: a, score: score(a) });
  const refine = (around: number) => {
    let best = { angle: around, score: score(around) };
    for (const [from, to, step] of [
      [-1.5, 1.5, 0.5],
      [-0.25, 0.25, 0.25],
    ]) {
      const centre = best.angle;
      for (let a = centre + from; a <= centre + to + 1e-9; a += step) {
        const v = score(a);
        if (v > best.score) best = { angle: a, score: v };
      }
    }
    // The same direction named from the other end: keep within -90..90.
    return best.angle >= 90 ? best.angle - 180 : best.angle < -90 ? best.angle + 180 : best.angle;
  };
  const ranked = [...coarse].sort((a, b) => b.score - a.score);
  const second = ranked.find((c) => apart(c.angle, ranked[0].angle) >= 20);
  return [refine(ranked[0].angle), ...(second ? [refine(second.angle)] : [])];
}

/** Degrees between two text directions (a direction and its reverse are one). */
const apart = (a: number, b: number) => Math.min(Math.abs(a - b), 180 - Math.abs(a - b));

/**
 * Pieces of ink shaped like characters (any orientation): neither a long edge, a rule, a
 * photo's outline nor a grain streak. The text direction is measured on their centres only.
 */
function characterLike(parts: Component[], longSide: number): Component[] {
  const limit = Math.max(12, longSide * 0.06);
  return parts.filter((c) => {
    const w = c.right - c.left + 1;
    const h = c.bottom - c.top + 1;
    const [short, long] = w < h ? [w, h] : [h, w];
    return long >= 4 && long <= limit && long <= short * 5 && c.count >= 6 && c.count >= w * h * 0.12;
  });
}

/** Median height of character-sized components: the page's text height. */
function textHeight(parts: Component[]): number {
  const heights = parts
    .map((c) => ({ h: c.bottom - c.top + 1, w: c.right - c.left + 1, n: c.count }))
    .filter((c) => c.h >= 4 && c.h <= 80 && c.w <= c.h * 2 && c.n >= 6)
    .map((c) => c.h)
    .sort((a, b) => a - b);
  return heights.length ? heights[Math.floor(heights.length / 2)] : 8;
}

export interface Layout {
  /** Candidate zone bands, best first (none when no band of long equal lines is found). */
  bands: ZoneBand[];
  /** The median height of the page's characters in working-copy pixels (null: no ink). */
  textHeight: number | null;
}

/** The page's text layout: its zone bands and its text height. */
export async function locateZone(grey: Grey, options: InkOptions = INK_SETTINGS[0]): Promise<Layout> {
  const ink = await inkOf(grey, options);
  const { mask, width, height } = ink;
  const n = inkPixels(mask);
  if (n < 50) return { bands: [], textHeight: null };
  const { xs, ys, bin, large } = directionPoints(mask, width, height);
  const diagonal = Math.hypot(width, height);
  const angles = textAngles(xs, ys, diagonal, bin);
  // The direction of the page's larger characters too, when it differs: a document lying a few
  // degrees askew on printed paper (a form, a newspaper) has far more of the paper's small text
  // than of its own, and the zone's characters are among its largest.
  for (const points of large) {
    const [own] = textAngles(points.xs, points.ys, diagonal, points.bin);
    if (angles.every((a) => apart(a, own) > 1)) angles.push(own);
  }
  const found: Layout = { bands: [], textHeight: null };
  // Every direction's bands, taken in turn (each direction's best first): a page of text running
  // the other way (a passport's facing page turned sideways) can outscore the zone's direction
  // and give bands of its own.
  const byAngle = angles.map((angle) => {
    const layout = linesAt(ink, angle, grey);
    found.textHeight ??= layout.textHeight;
    return layout.bands;
  });
  for (let i = 0; byAngle.some((bands) => i < bands.length); i++)
    for (const bands of byAngle)
      if (bands[i] && !found.bands.some((b) => sameBand(b, bands[i]))) found.bands.push(bands[i]);
  return found;
}

/** The same band found twice (another ink setting, or a group of two inside three): same turn, boxes overlapping by most of their area. */
export function sameBand(a: ZoneBand, b: ZoneBand): boolean {
  if (Math.abs(a.rotation - b.rotation) > 1) return false;
  const w = Math.min(a.box.left + a.box.width, b.box.left + b.box.width) - Math.max(a.box.left, b.box.left);
  const h = Math.min(a.box.top + a.box.height, b.box.top + b.box.height) - Math.max(a.box.top, b.box.top);
  return w > 0 && h > 0 && w * h > 0.6 * Math.min(a.box.width * a.box.height, b.box.width * b.box.height);
}

interface Points {
  xs: Float64Array;
  ys: Float64Array;
  bin: number;
}

/**
 * How much wider than the page's median character a "larger" character is (a zone's, a heading's):
 * each share in turn, since on small print the tall letters of the print itself (an `m`, a `w`)
 * reach 1.5 times its median and outvote a card's own text.
 */
const LARGE_TEXT = [1.5, 2.5];

/**
 * What the text direction is measured on, relative to the mask's centre: the centres of the
 * character-shaped pieces (so texture, edges and rules do not vote), or, with too few of them,
 * a sample of every ink pixel; and the row width the projection counts in.
 */
function directionPoints(mask: Uint8Array, width: number, height: number): Points & { large: Points[] } {
  const cx = width / 2;
  const cy = height / 2;
  const chars = characterLike(components(mask, width, height), Math.max(width, height));
  const centres = (parts: Component[]): Points => {
    const xs = new Float64Array(parts.length);
    const ys = new Float64Array(parts.length);
    parts.forEach((c, i) => {
      xs[i] = (c.left + c.right) / 2 - cx;
      ys[i] = (c.top + c.bottom) / 2 - cy;
    });
    // Rows about a third of a character's narrow side: centres of one line fall in one or two.
    const sides = parts.map((c) => Math.min(c.right - c.left, c.bottom - c.top) + 1).sort((a, b) => a - b);
    return { xs, ys, bin: Math.max(1, sides[Math.floor(sides.length / 2)] / 3) };
  };
  if (chars.length >= 12) {
    // The larger characters apart: a narrow side at least LARGE_TEXT times the median's (a small
    // word run together is long, never wide).
    const narrow = (c: Component) => Math.min(c.right - c.left, c.bottom - c.top) + 1;
    const median = chars.map(narrow).sort((a, b) => a - b)[Math.floor(chars.length / 2)];
    const large = LARGE_TEXT.map((share) => chars.filter((c) => narrow(c) >= median * share)).filter(
      (set) => set.length >= 12,
    );
    return { ...centres(chars), large: large.map(centres) };
  }
  const n = inkPixels(mask);
  const step = Math.max(1, Math.floor(n / 15_000));
  const xs = new Float64Array(Math.ceil(n / step));
  const ys = new Float64Array(xs.length);
  let k = 0;
  let seen = 0;
  for (let i = 0; i < mask.length; i++) {
    if (!mask[i] || seen++ % step) continue;
    xs[k] = (i % width) - cx;
    ys[k++] = Math.floor(i / width) - cy;
  }
  return { xs: xs.subarray(0, k), ys: ys.subarray(0, k), bin: 1, large: [] };
}

/** The zone bands found with the text running at `angle`: the ink turned level, characters joined into lines, lines grouped. */
function linesAt(
  ink: { mask: Uint8Array; width: number; height: number; scale: number },
  angle: number,
  grey: Grey,
): Layout {
  const { mask, width, height, scale } = ink;
  const cx = width / 2;
  const cy = height / 2;
  const t = (angle * Math.PI) / 180;
  const [c, s] = [Math.cos(t), Math.sin(t)];
  // The ink turned so the text runs horizontally.
  const W = Math.ceil(width * Math.abs(c) + height * Math.abs(s)) + 2;
  const H = Math.ceil(width * Math.abs(s) + height * Math.abs(c)) + 2;
  const turned = new Uint8Array(W * H);
  for (let i = 0; i < mask.length; i++) {
    if (!mask[i]) continue;
    const dx = (i % width) - cx;
    const dy = Math.floor(i / width) - cy;
    const X = Math.round(dx * c + dy * s + W / 2);
    const Y = Math.round(-dx * s + dy * c + H / 2);
    if (X >= 0 && X < W && Y >= 0 && Y < H) turned[Y * W + X] = 1;
  }
  const h = textHeight(components(turned, W, H));
  // Characters of a line joined into one piece: gaps up to about a character's height are filled.
  const gap = Math.max(2, Math.round(h * 1.1));
  const smeared = new Uint8Array(turned);
  for (let y = 0; y < H; y++) {
    let last = -1;
    for (let x = 0; x < W; x++) {
      if (!turned[y * W + x]) continue;
      if (last >= 0 && x - last > 1 && x - last <= gap) smeared.fill(1, y * W + last + 1, y * W + x);
      last = x;
    }
  }
  const pieces = components(smeared, W, H).filter((p) => {
    const ph = p.bottom - p.top + 1;
    const pw = p.right - p.left + 1;
    // A zone's characters may stand far taller than the page's median text (small captions on a patterned page).
    const tallest = Math.max(h * ZONE_TO_TEXT, Math.min(width, height) * ZONE_OF_FRAME);
    return ph >= 3 && ph <= tallest && p.count >= pw * ph * 0.25;
  });
  const lines = joinPieces(pieces)
    .filter((p) => {
      const ph = p.bottom - p.top + 1;
      const pw = p.right - p.left + 1;
      return pw >= ph * 12 && p.count >= pw * ph * 0.15;
    })
    .sort((a, b) => a.top - b.top);
  for (const line of lines) {
    const ph = line.bottom - line.top + 1;
    const { bow, travel } = bowOf(line, turned, W, h);
    if (bow >= (ph - travel) * BOWED) line.bowedHeight = Math.max(3, ph - travel);
  }
  const bands = groupLines(lines).map((group) => toBand(group, { turned, W, H, angle, scale, grey }));
  return {
    bands: bands.sort((a, b) => b.box.width * b.lines - a.box.width * a.lines).slice(0, 3),
    textHeight: h / scale,
  };
}

/**
 * A line whose centre travels up or down along it by at least this share of its characters'
 * height (its box's less the travel) is bowed (a bent page, a booklet lying open): its box is as
 * tall as its characters and the bow together, so its height is taken as the box's less the
 * bow. A straight line's centre travels by a pixel or two (a `<` sits a little lower than a letter).
 */
const BOWED = 0.35;

/**
 * How a line's centre moves along it: the ink's mean row in windows of about two characters,
 * fitted with a parabola. `bow` is the parabola's height over its chord (its sagitta: the curve,
 * not a straight slope), `travel` how far the fitted centre moves from its highest to its lowest
 * (slope and curve: a bowed line turned a little off level moves by both), in pixels. Zero for a
 * line too short to tell.
 */
function bowOf(line: Component, mask: Uint8Array, W: number, textHeight: number): { bow: number; travel: number } {
  const step = Math.max(4, Math.round(textHeight * 2));
  const xs: number[] = [];
  const ys: number[] = [];
  for (let x0 = line.left; x0 + step <= line.right + 1; x0 += step) {
    let sum = 0;
    let n = 0;
    for (let y = line.top; y <= line.bottom; y++)
      for (let x = x0; x < x0 + step; x++)
        if (mask[y * W + x]) {
          sum += y;
          n++;
        }
    if (n >= step) {
      xs.push(x0 + step / 2);
      ys.push(sum / n);
    }
  }
  const c = xs.length >= 5 ? parabola(xs, ys) : null;
  if (!c) return { bow: 0, travel: 0 };
  const m = xs.reduce((a, b) => a + b, 0) / xs.length;
  const at = (x: number) => c[1] * (x - m) + c[2] * (x - m) ** 2;
  const ends = [at(line.left), at(line.right)];
  // The parabola's turning point, when it falls within the line.
  const turning = c[2] !== 0 ? m - c[1] / (2 * c[2]) : NaN;
  if (turning > line.left && turning < line.right) ends.push(at(turning));
  const half = (line.right - line.left + 1) / 2;
  return { bow: Math.abs(c[2]) * half * half, travel: Math.max(...ends) - Math.min(...ends) };
}

/**
 * Pieces of one line that the smear left apart (a zone's fillers stand wider apart than its
 * letters; a name's `<<` or a worn character breaks a line) joined again: pieces level with
 * each other, of similar height, less than a few characters apart. A bar standing beside a line
 * (a card's edge against the desk, a frame's rule) is no part of it: a piece at either end,
 * narrower than it is tall and taller by `BAR` than most of the line's length, is left out of
 * the line's box.
 */
function joinPieces(pieces: Component[]): Component[] {
  type Chain = Component & { widest: number; parts: Component[] };
  const chains: Chain[] = [];
  for (const p of [...pieces].sort((a, b) => a.left - b.left)) {
    const ph = p.bottom - p.top + 1;
    const chain = chains.find((c) => {
      const ch = c.bottom - c.top + 1;
      const overlap = Math.min(c.bottom, p.bottom) - Math.max(c.top, p.top) + 1;
      const gap = p.left - c.right;
      return (
        overlap >= 0.6 * Math.min(ch, ph) &&
        gap > -2 &&
        gap <= 2.2 * Math.max(ch, ph) &&
        Math.max(ch, ph) <= 2.2 * Math.min(ch, ph)
      );
    });
    if (!chain) {
      chains.push({ ...p, inkHeight: ph, widest: p.right - p.left + 1, parts: [p] } as Chain);
      continue;
    }
    chain.parts.push(p);
    if (p.right - p.left + 1 > chain.widest) {
      chain.widest = p.right - p.left + 1;
      chain.inkHeight = ph;
    }
    chain.left = Math.min(chain.left, p.left);
    chain.right = Math.max(chain.right, p.right);
    chain.top = Math.min(chain.top, p.top);
    chain.bottom = Math.max(chain.bottom, p.bottom);
    chain.count += p.count;
  }
  return chains.map(({ parts, widest: _, ...chain }) => {
    const height = (p: Component) => p.bottom - p.top + 1;
    const width = (p: Component) => p.right - p.left + 1;
    // The height most of the line's length stands at (a median weighted by width): its characters', whether
    // the smear joined them into one piece or left each apart.
    const byHeight = [...parts].sort((a, b) => height(a) - height(b));
    const half = parts.reduce((sum, p) => sum + width(p), 0) / 2;
    let reach = 0;
    const usual = height(byHeight.find((p) => (reach += width(p)) >= half)!);
    const bar = (p: Component) => height(p) > usual * BAR && width(p) < height(p);
    const ends = [parts[0], parts.at(-1)!].filter(bar);
    const line = parts.filter((p) => !ends.includes(p));
    if (ends.length === 0 || line.length === 0) return chain;
    return {
      ...chain,
      left: Math.min(...line.map((p) => p.left)),
      right: Math.max(...line.map((p) => p.right)),
      top: Math.min(...line.map((p) => p.top)),
      bottom: Math.max(...line.map((p) => p.bottom)),
      count: line.reduce((sum, p) => sum + p.count, 0),
    };
  });
}

/** How much taller than most of its line a narrow piece at the line's end is a bar, not one of its characters. */
const BAR = 1.4;

/** Lines stacked at a regular pitch, of equal length and aligned on the left: 2 or 3 of them. */
function groupLines(lines: Component[]): Component[][] {
  const groups: Component[][] = [];
  const fitsAs = (a: Component, b: Component, ha: number, pitch: number) => {
    const wa = a.right - a.left + 1;
    const wb = b.right - b.left + 1;
    return (
      pitch >= ha * 1.05 && pitch <= ha * 2.8 && Math.abs(wa - wb) <= wa * 0.12 && Math.abs(a.left - b.left) <= ha * 2
    );
  };
  // Bowed lines by their characters' height and the pitch between their boxes' middles: the lines
  // of a bent page bow alike, so one measured bowed (the other's measure thrown by a stray mark
  // joined to it) speaks for both.
  const fits = (a: Component, b: Component) => {
    const bowed = a.bowedHeight ?? b.bowedHeight;
    return (
      fitsAs(a, b, a.bottom - a.top + 1, b.top - a.top) ||
      (!!bowed && fitsAs(a, b, bowed, (b.top + b.bottom - a.top - a.bottom) / 2))
    );
  };
  for (let i = 0; i < lines.length; i++) {
    const group = [lines[i]];
    for (let j = i + 1; j < lines.length && group.length < 3; j++)
      if (fits(group[group.length - 1], lines[j])) group.push(lines[j]);
    if (group.length >= 2) groups.push(group);
  }
  // A group inside a longer one is the same zone. A group within a run of PARAGRAPH lines at its
  // pitch is a column of print (the newspaper or form a card lies on), not a zone of two or three:
  // the run's other lines need only be of the group's height and reach across a good part of it
  // (print breaks into pieces where its words stand apart).
  const runOf = (g: Component[]) => {
    const pitch = g[1].top - g[0].top;
    const height = g[0].bottom - g[0].top + 1;
    const [left, right] = [Math.min(...g.map((l) => l.left)), Math.max(...g.map((l) => l.right))];
    const alike = (a: Component, b: Component) =>
      Math.abs(b.top - a.top - pitch) <= pitch * 0.2 &&
      [a, b].every(
        (l) =>
          Math.abs(l.bottom - l.top + 1 - height) <= height * 0.5 &&
          Math.min(l.right, right) - Math.max(l.left, left) >= (right - left) * 0.3,
      );
    let n = g.length;
    for (let i = lines.indexOf(g[0]), j = i - 1; j >= 0 && n < PARAGRAPH; j--)
      if (alike(lines[j], lines[i])) [i, n] = [j, n + 1];
    for (let i = lines.indexOf(g.at(-1)!), j = i + 1; j < lines.length && n < PARAGRAPH; j++)
      if (alike(lines[i], lines[j])) [i, n] = [j, n + 1];
    return n;
  };
  return groups.filter(
    (g) => !groups.some((o) => o !== g && o.length > g.length && g.every((l) => o.includes(l))) && runOf(g) < PARAGRAPH,
  );
}

/** Lines of equal length at one pitch that make a paragraph: a zone has three at most, and one stray line may join it. */
const PARAGRAPH = 5;

function toBand(
  group: Component[],
  at: { turned: Uint8Array; W: number; H: number; angle: number; scale: number; grey: Grey },
): ZoneBand {
  const { turned, W, H, angle, scale, grey } = at;
  const left = Math.min(...group.map((l) => l.left));
  const right = Math.max(...group.map((l) => l.right));
  const top = group[0].top;
  const bottom = group[group.length - 1].bottom;
  // A bowed group's character height is its bowed lines' (a box spans the bow too).
  const bowed = group.filter((l) => l.bowedHeight);
  const lineHeight = bowed.length
    ? bowed.reduce((sum, l) => sum + l.bowedHeight!, 0) / bowed.length
    : group.reduce((sum, l) => sum + (l.inkHeight ?? l.bottom - l.top + 1), 0) / group.length;
  // Which side of the band holds the rest of the document's text.
  const reach = right - left;
  let above = 0;
  let below = 0;
  for (let y = Math.max(0, Math.round(top - reach * 0.8)); y < Math.min(H, Math.round(bottom + reach * 0.8)); y++) {
    if (y >= top && y <= bottom) continue;
    for (let x = left; x <= right; x++)
      if (turned[y * W + x]) {
        if (y < top) above += 1;
        else below += 1;
      }
  }
  // To working-copy pixels in the frame sharp's rotation gives (centred the same way).
  const t = (angle * Math.PI) / 180;
  const Ww = grey.width * Math.abs(Math.cos(t)) + grey.height * Math.abs(Math.sin(t));
  const Hw = grey.width * Math.abs(Math.sin(t)) + grey.height * Math.abs(Math.cos(t));
  const toX = (x: number) => (x - W / 2) / scale + Ww / 2;
  const toY = (y: number) => (y - H / 2) / scale + Hw / 2;
  const charHeight = lineHeight / scale;
  const marginX = charHeight * 1.5;
  const marginY = charHeight * 0.7;
  const box = {
    left: Math.max(0, Math.floor(toX(left) - marginX)),
    top: Math.max(0, Math.floor(toY(top) - marginY)),
    width: 0,
    height: 0,
  };
  box.width = Math.min(Math.ceil(Ww) - box.left, Math.ceil(toX(right) + marginX) - box.left);
  box.height = Math.min(Math.ceil(Hw) - box.top, Math.ceil(toY(bottom) + marginY) - box.top);
  return { rotation: -angle, box, lines: group.length, charHeight, upright: above >= below };
}
