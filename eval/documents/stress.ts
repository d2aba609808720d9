// Captures harsher than the robustness corpus's, to find where the document check breaks: renders
// of our own (robustness, never accuracy), OCR-B zones only, each probe on its own fresh people.
// What the probes found and what was fixed: docs/checks-document-accuracy.md ("Stress probes").
//
//   node dist-eval/eval/documents/stress.js [--probes=tiny9,tiny8,...] [--per-probe=6] [--seed=101] [--save=<dir>]
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import sharp from 'sharp';
import { stopOcr } from '../../src/engine/document/index.js';
import {
  CARD,
  type RenderStyle,
  type SynthLayout,
  ZONE_FONTS,
  person,
  renderSynthetic,
  seeded,
} from '../../test/engine/corpus/robustness-render.js';
import { gradeGenuine, percentile } from './grade.js';
import { liveDocumentCheck } from './real.js';

const DESK = { r: 118, g: 92, b: 70 };

async function onDesk(image: Buffer, angle: number, margin = 80, desk = DESK): Promise<Buffer> {
  const turned = await sharp(image).rotate(angle, { background: desk }).toBuffer();
  return sharp(turned)
    .extend({ top: margin, bottom: margin, left: margin, right: margin, background: desk })
    .jpeg({ quality: 85 })
    .toBuffer();
}

/** Each pixel of an RGB copy set from a source position (null: desk), as a warp maps it. */
async function warped(image: Buffer, from: (x: number, y: number, w: number, h: number) => [number, number] | null) {
  const { data, info } = await sharp(image).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const { width, height, channels } = info;
  const out = Buffer.alloc(data.length);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const at = (y * width + x) * channels;
      const source = from(x, y, width, height);
      if (!source) {
        out.set([DESK.r, DESK.g, DESK.b], at);
        continue;
      }
      const [sx, sy] = source;
      out.set(data.subarray((sy * width + sx) * channels, (sy * width + sx) * channels + channels), at);
    }
  return sharp(out, { raw: info }).jpeg({ quality: 88 }).toBuffer();
}

/**
 * A lamp's reflection on a picture: a soft white ellipse a third of its width across, centred at
 * `across` of its width and 78% of its height (over a zone at the foot of a page), adding
 * `strength` of the way to white at its centre and fading out to its edge. JPEG 85.
 */
export async function reflection(image: Buffer, across: number, strength = 0.95): Promise<Buffer> {
  const { width = 0, height = 0 } = await sharp(image).metadata();
  const glow = Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><defs><radialGradient id="g"><stop offset="0" stop-color="#fff" stop-opacity="${strength}"/><stop offset="0.6" stop-color="#fff" stop-opacity="${Math.round(strength * 63) / 100}"/><stop offset="1" stop-color="#fff" stop-opacity="0"/></radialGradient></defs><ellipse cx="${Math.round(width * across)}" cy="${Math.round(height * 0.78)}" rx="${Math.round(width * 0.17)}" ry="${Math.round(height * 0.12)}" fill="url(#g)"/></svg>`,
  );
  return sharp(image)
    .composite([{ input: glow }])
    .jpeg({ quality: 85 })
    .toBuffer();
}

/** A page of newspaper print, the document pasted on it askew. */
async function onNewsprint(image: Buffer, random: () => number): Promise<Buffer> {
  const { width = 1000, height = 700 } = await sharp(image).metadata();
  const [W, H] = [Math.round(width * 1.8), Math.round(height * 1.8)];
  const words =
    'the council said on monday that the new road would open next year after delays caused by weather'.split(' ');
  let text = '';
  for (let y = 24; y < H; y += 26) {
    let line = '';
    while (line.length < W / 9) line += `${words[Math.floor(random() * words.length)]} `;
    text += `<text x="10" y="${y}" font-family="DejaVu Serif" font-size="18" fill="#333">${line}</text>`;
  }
  const paper = Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}"><rect width="100%" height="100%" fill="#efece4"/>${text}</svg>`,
  );
  const askew = await sharp(image)
    .rotate(Math.round((random() - 0.5) * 16), { background: { r: 0, g: 0, b: 0, alpha: 0 } })
    .png()
    .toBuffer();
  return sharp(paper)
    .composite([{ input: askew, left: Math.round(W * 0.2), top: Math.round(H * 0.2) }])
    .jpeg({ quality: 85 })
    .toBuffer();
}

/** The page on the desk (2°) under other light: each channel at 40% plus `add`, sensor noise of `noise` levels, JPEG at `quality`. */
async function relit(flat: Buffer, light: { add: number; noise: number; quality: number }, random: () => number) {
  const { data, info } = await sharp(await onDesk(flat, 2))
    .raw()
    .toBuffer({ resolveWithObject: true });
  for (let i = 0; i < data.length; i++)
    data[i] = Math.max(0, Math.min(255, data[i] * 0.4 + light.add + (random() - 0.5) * light.noise));
  return sharp(data, { raw: info }).jpeg({ quality: light.quality }).toBuffer();
}

type Probe = (flat: Buffer, layout: SynthLayout, random: () => number) => Promise<Buffer>;

const smallScan =
  (charHeight: number): Probe =>
  (flat, layout) =>
    sharp(flat)
      .resize({ width: Math.round(CARD[layout].width * (charHeight / 25)) })
      .jpeg({ quality: 85 })
      .toBuffer();

export const PROBES: Record<string, Probe> = {
  /** Zone characters 9 and 8 px high (the issue asks for about 10). */
  tiny9: smallScan(9),
  tiny8: smallScan(8),
  /** A strong keystone: the top edge 30% shorter than the bottom one. */
  keystone30: async (flat) =>
    warped(await onDesk(flat, 0), (x, y, w, h) => {
      const shrink = 0.3 * (1 - y / (h - 1));
      const u = (x - (w * shrink) / 2) / (w * (1 - shrink));
      return u < 0 || u > 1 ? null : [Math.round(u * (w - 1)), Math.min(h - 1, Math.round(y * (1 - shrink * 0.25)))];
    }),
  /** The camera moving sideways: a 7 px horizontal smear. */
  motion: async (flat) =>
    sharp(await onDesk(flat, 1))
      .convolve({ width: 7, height: 3, kernel: [...Array(7).fill(0), ...Array(7).fill(1), ...Array(7).fill(0)] })
      .jpeg({ quality: 82 })
      .toBuffer(),
  /** A page bent like an open booklet's: rows bowed by 2.5% of the height. */
  curve: async (flat) =>
    warped(await onDesk(flat, 0), (x, y, w, h) => {
      const sy = Math.round(y - 0.025 * h * Math.sin((Math.PI * x) / w));
      return sy < 0 || sy >= h ? null : [x, sy];
    }),
  /** Dim light: the page at 40% brightness, sensor noise, JPEG 60. */
  dark_noise: async (flat, _layout, random) => relit(flat, { add: 10, noise: 40, quality: 60 }, random),
  /** The document askew on a page of newspaper print. */
  newsprint: async (flat, _layout, random) => onNewsprint(flat, random),
  /** The document a fifth of a 1600 px frame's width. */
  far_small: async (flat) => {
    const desk = await onDesk(flat, 3, 40);
    const { width = 0, height = 0 } = await sharp(desk).metadata();
    return sharp(desk)
      .extend({ top: height, bottom: height, left: width, right: width, background: DESK })
      .resize({ width: 1600 })
      .jpeg({ quality: 85 })
      .toBuffer();
  },
  /** Out of focus: a Gaussian blur of sigma 2.2 px on a page of ~25 px zone characters. */
  defocus: async (flat) =>
    sharp(await onDesk(flat, 1))
      .blur(2.2)
      .jpeg({ quality: 85 })
      .toBuffer(),
  /** A lamp's reflection: a bright soft ellipse over a third of the zone's width, from one end. */
  glare_zone: async (flat, _layout, random) => reflection(await onDesk(flat, 1), random() < 0.5 ? 0.3 : 0.7),
  /** A hand's shadow over the left half of the page: that half at 45% of its light. */
  shadow_half: async (flat) => {
    const desk = await onDesk(flat, 2);
    const { width = 0, height = 0 } = await sharp(desk).metadata();
    const shade = Buffer.from(
      `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><defs><linearGradient id="s"><stop offset="0.4" stop-color="#000" stop-opacity="0.55"/><stop offset="0.5" stop-color="#000" stop-opacity="0"/></linearGradient></defs><rect width="100%" height="100%" fill="url(#s)"/></svg>`,
    );
    return sharp(desk)
      .composite([{ input: shade }])
      .jpeg({ quality: 85 })
      .toBuffer();
  },
  /** Faded print: the ink lightened to 55% grey (an old card, a worn laminate). */
  faded: async (flat) =>
    sharp(await onDesk(flat, 1))
      .linear(0.45, 140)
      .jpeg({ quality: 85 })
      .toBuffer(),
  /** A photo forwarded by a messenger: 900 px wide, JPEG 35, a warm colour cast. */
  forwarded: async (flat) =>
    sharp(await onDesk(flat, 2))
      .recomb([
        [1.0, 0.05, 0],
        [0, 0.92, 0],
        [0, 0, 0.7],
      ])
      .resize({ width: 900 })
      .jpeg({ quality: 35 })
      .toBuffer(),
  /** Zone characters 7 px high (a web thumbnail of a specimen), JPEG 70. */
  tiny7: (flat, layout) =>
    sharp(flat)
      .resize({ width: Math.round(CARD[layout].width * (7 / 25)) })
      .jpeg({ quality: 70 })
      .toBuffer(),
  /** Photographed from the side: the right edge 25% shorter than the left one. */
  sideways_keystone: async (flat) =>
    warped(await onDesk(flat, 0), (x, y, w, h) => {
      const shrink = 0.25 * (x / (w - 1));
      const v = (y - (h * shrink) / 2) / (h * (1 - shrink));
      return v < 0 || v > 1 ? null : [Math.min(w - 1, Math.round(x * (1 - shrink * 0.25))), Math.round(v * (h - 1))];
    }),
  /** Held askew: 24-29° either way, on the desk. */
  skew_steep: async (flat, _layout, random) =>
    onDesk(flat, (random() < 0.5 ? -1 : 1) * (24 + Math.round(random() * 5))),
  /** Overexposed: the page washed bright and flat (contrast 40%, lifted), a little noise. */
  overexposed: async (flat, _layout, random) => relit(flat, { add: 150, noise: 16, quality: 80 }, random),
  /** A photo of the page on a screen: the screen's RGB stripes, a faint moiré and a tilt. */
  screen: async (flat) => {
    const desk = await onDesk(flat, 1.5, 30);
    const { data, info } = await sharp(desk).raw().toBuffer({ resolveWithObject: true });
    const { width, height, channels } = info;
    for (let y = 0; y < height; y++)
      for (let x = 0; x < width; x++) {
        const at = (y * width + x) * channels;
        const beat = 0.88 + 0.12 * Math.sin((2 * Math.PI * (x + 0.7 * y)) / 37);
        for (let c = 0; c < 3; c++) data[at + c] = Math.round(data[at + c] * beat * (x % 3 === c ? 1 : 0.8));
      }
    return sharp(data, { raw: info }).blur(0.8).jpeg({ quality: 80 }).toBuffer();
  },
  /** Upside down and slightly askew (a card photographed from across the table). */
  upside_down: async (flat, _layout, random) => onDesk(flat, 180 + Math.round((random() - 0.5) * 12)),
  /** On a pale table (a white desk, a sheet of paper): little contrast between the card's edge and what it lies on. */
  pale_desk: async (flat, _layout, random) =>
    onDesk(flat, Math.round((random() - 0.5) * 8), 60, { r: 214, g: 210, b: 200 }),
  /** The page trimmed close under its zone (a zone 1-2 mm from the edge, as on many cards and booklets), on the desk. */
  tight_margin: async (flat, layout) => {
    const { width = 0, height = 0 } = await sharp(flat).metadata();
    const cut = await sharp(flat)
      .extract({ left: 0, top: 0, width, height: height - 24 })
      .toBuffer();
    return onDesk(cut, layout === 'TD1' ? 2 : 1);
  },
  /**
   * A holographic laminate over the page, the zone included: diagonal rainbow bands at a third of
   * their strength, on the desk.
   */
  hologram: async (flat, _layout, random) => {
    const desk = await onDesk(flat, 1);
    const { width = 0, height = 0 } = await sharp(desk).metadata();
    const hues = ['#ff4040', '#ffd040', '#40ff80', '#40c0ff', '#a040ff'];
    const offset = Math.round(random() * 100);
    const stops = hues
      .map((c, i) => `<stop offset="${(i / (hues.length - 1)).toFixed(2)}" stop-color="${c}"/>`)
      .join('');
    const film = Buffer.from(
      `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><defs><linearGradient id="h" x1="0" y1="0" x2="0.18" y2="0.12" spreadMethod="reflect" gradientTransform="translate(${offset / 1000} 0)">${stops}</linearGradient></defs><rect width="100%" height="100%" fill="url(#h)" opacity="0.33"/></svg>`,
    );
    return sharp(desk)
      .composite([{ input: film }])
      .jpeg({ quality: 85 })
      .toBuffer();
  },
};

/** One probe's cases: fresh people (its own seed, the same whichever probes run with it), OCR-B zones, rendered and captured. */
export async function* probeCases(name: string, seed: number, count: number) {
  const fonts = ZONE_FONTS.filter((f) => f.name.startsWith('ocr-b'));
  const layouts: SynthLayout[] = ['TD3', 'TD1', 'TD2'];
  const random = seeded(seed + 1000 * Object.keys(PROBES).indexOf(name));
  for (let index = 0; index < count; index++) {
    const p = person(random);
    const [layout, font] = [layouts[index % layouts.length], fonts[index % fonts.length]];
    const r = seeded(Math.floor(random() * 1e9));
    const style: RenderStyle = {
      font,
      letterSpacing: 1024,
      background: index % 2 === 0 ? 'guilloche' : 'plain',
      ink: '#161616',
    };
    const image = await PROBES[name](await renderSynthetic(p, layout, style, r), layout, r);
    yield { index, p, layout, font, image };
  }
}

/** One probe's case by its position (0-based), exactly as a run of `count > index` cases renders it. */
export async function probeCase(name: string, seed: number, index: number) {
  let found: Awaited<ReturnType<ReturnType<typeof probeCases>['next']>>['value'];
  for await (const c of probeCases(name, seed, index + 1)) found = c;
  return found!;
}

async function main(args: string[]) {
  const opt = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
  const names = (opt('probes') ?? Object.keys(PROBES).join(',')).split(',');
  const unknown = names.filter((n) => !PROBES[n]);
  if (unknown.length)
    throw new Error(`unknown probes: ${unknown.join(', ')} (known: ${Object.keys(PROBES).join(', ')})`);
  const perProbe = Number(opt('per-probe') ?? 6);
  const save = opt('save');
  const seed = Number(opt('seed') ?? 101);
  const now = new Date();
  for (const name of names) {
    const runs: { right: boolean; ms: number }[] = [];
    for await (const { p, layout, font, image, index: i } of probeCases(name, seed, perProbe)) {
      if (save) fs.writeFileSync(path.join(save, `${name}-${i}.jpg`), image);
      const { result, ms } = await liveDocumentCheck(image, now);
      const g = gradeGenuine({ document_number: p.number, date_of_birth: p.birth, expiry_date: p.expiry }, result);
      runs.push({ right: g.outcome === 'read_right', ms });
      console.log(
        `  ${name} ${layout}/${font.name}: ${g.outcome}${g.refusedAs ? ` ${g.refusedAs}` : ''}${g.idInvalid ? ' ID_INVALID' : ''}${g.wrongNumberValid ? ' WRONG-VALID' : ''}; codes ${result.reasonCodes.join(',') || 'none'}; ${Math.round(ms)} ms`,
      );
    }
    const ms = runs.map((r) => r.ms);
    console.log(
      `PROBE ${name}: right ${runs.filter((r) => r.right).length}/${runs.length}; p50 ${Math.round(percentile(ms, 50) ?? 0)} ms, max ${Math.round(Math.max(...ms))} ms`,
    );
  }
  await stopOcr();
}

if (import.meta.url === pathToFileURL(process.argv[1]).href)
  main(process.argv.slice(2)).catch((e) => {
    console.error(e);
    process.exit(1);
  });
