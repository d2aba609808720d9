import type { Grey } from './decode.js';
import { percentiles } from './frame.js';

/**
 * A bent page's zone straightened: the MRZ model reads a line whose characters stand level, and a
 * page that bows (a booklet lying open, a card held curved) lifts a line's middle above its ends.
 * The band's crop is measured along its length (where its ink sits in windows of a few
 * characters), the bow fitted with a parabola, and each column moved up or down by the bow.
 */

/** A crop whose lines bow by less than this share of a character's height is left as it is. */
export const STRAIGHTEN_FROM = 0.3;

/** Least-squares y = c0 + c1·u + c2·u² with u centred on the xs (null when degenerate). */
export function parabola(xs: number[], ys: number[]): [number, number, number] | null {
  const m = xs.reduce((a, b) => a + b, 0) / xs.length;
  // Normal equations of the centred problem, solved by Cramer's rule.
  let [s0, s1, s2, s3, s4, t0, t1, t2] = [0, 0, 0, 0, 0, 0, 0, 0];
  xs.forEach((x, i) => {
    const u = x - m;
    const y = ys[i];
    s0 += 1;
    s1 += u;
    s2 += u * u;
    s3 += u * u * u;
    s4 += u * u * u * u;
    t0 += y;
    t1 += u * y;
    t2 += u * u * y;
  });
  const det3 = (a: number[]) =>
    a[0] * (a[4] * a[8] - a[5] * a[7]) - a[1] * (a[3] * a[8] - a[5] * a[6]) + a[2] * (a[3] * a[7] - a[4] * a[6]);
  const A = [s0, s1, s2, s1, s2, s3, s2, s3, s4];
  const d = det3(A);
  if (!Number.isFinite(d) || Math.abs(d) < 1e-9) return null;
  const withColumn = (k: number) => A.map((v, i) => (i % 3 === k ? [t0, t1, t2][Math.floor(i / 3)] : v));
  return [det3(withColumn(0)) / d, det3(withColumn(1)) / d, det3(withColumn(2)) / d];
}

/**
 * The crop with its bow taken out, or null when it hardly bows (under STRAIGHTEN_FROM of a
 * character's height) or cannot be measured. Only the curve is taken out, not a straight slope:
 * the band was already turned level by the text's direction.
 */
export function straightened(crop: Grey, charHeight: number): Grey | null {
  const { data, width, height } = crop;
  const [ink, paper] = percentiles(data, 0.02, 0.5);
  if (paper - ink < 24) return null;
  const threshold = (ink + paper) / 2;
  // Each window's ink rows: the profile, then its shift from the middle window's by correlation,
  // searched from the middle outward a few pixels around its neighbour's shift (so a line is
  // never matched with the next), to a fraction of a pixel.
  const step = Math.max(6, Math.round(charHeight * 3));
  const windows: { x: number; profile: Float64Array; mass: number }[] = [];
  for (let x0 = 0; x0 + step <= width; x0 += step) {
    const profile = new Float64Array(height);
    let mass = 0;
    for (let y = 0; y < height; y++)
      for (let x = x0; x < x0 + step; x++)
        if (data[y * width + x] < threshold) {
          profile[y] += 1;
          mass += 1;
        }
    windows.push({ x: x0 + step / 2, profile, mass });
  }
  const inked = windows.filter((w) => w.mass >= step * charHeight * 0.08);
  if (inked.length < 5) return null;
  const most = Math.max(1, Math.round(charHeight * 0.4));
  const middle = Math.floor(inked.length / 2);
  const reference = inked[middle].profile;
  const score = (b: Float64Array, d: number) => {
    let sum = 0;
    for (let y = Math.max(0, -d); y < Math.min(height, height - d); y++) sum += reference[y] * b[y + d];
    return sum;
  };
  const shiftOf = (b: Float64Array, around: number) => {
    const from = Math.round(around);
    let best = from;
    for (let d = from - most; d <= from + most; d++) if (score(b, d) > score(b, best)) best = d;
    const [l, c, r] = [score(b, best - 1), score(b, best), score(b, best + 1)];
    const curve = l - 2 * c + r;
    return curve < 0 ? best + (l - r) / (2 * curve) : best;
  };
  const offsets = new Array<number>(inked.length).fill(0);
  for (let i = middle + 1; i < inked.length; i++) offsets[i] = shiftOf(inked[i].profile, offsets[i - 1]);
  for (let i = middle - 1; i >= 0; i--) offsets[i] = shiftOf(inked[i].profile, offsets[i + 1]);
  const fit = parabola(
    inked.map((w) => w.x),
    offsets,
  );
  if (!fit) return null;
  const centre = inked.reduce((sum, w) => sum + w.x, 0) / inked.length;
  const curve = (x: number) => fit[2] * ((x - centre) ** 2 - (width / 2) ** 2 / 3);
  const half = width / 2;
  if (Math.abs(fit[2]) * half * half < charHeight * STRAIGHTEN_FROM) return null;
  const out = Buffer.alloc(data.length, paper);
  for (let x = 0; x < width; x++) {
    const d = curve(x);
    const whole = Math.floor(d);
    const part = d - whole;
    for (let y = 0; y < height; y++) {
      const sy = y + whole;
      if (sy < 0 || sy + 1 >= height) continue;
      out[y * width + x] = Math.round(data[sy * width + x] * (1 - part) + data[(sy + 1) * width + x] * part);
    }
  }
  return { ...crop, data: out };
}
