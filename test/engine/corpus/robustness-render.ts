import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { checkDigit } from '../../../src/engine/document/mrz.js';

/*
 * Synthetic documents for the robustness rows of engine:eval: varied people, the three ICAO
 * layouts, the zone set in OCR-B (two public-domain cuts shipped in fonts/) or a monospace
 * stand-in, with varied letter spacing, background and ink. Nothing here is a real document.
 */
const HERE = path.dirname(fileURLToPath(import.meta.url));
/**
 * The shipped fonts: beside this file, or beside its source when it runs compiled (dist-eval/
 * holds no fonts). Without them the text renderer would fall back to a sans font silently and
 * every "OCR-B" render would be DejaVu Sans, so a missing folder stops the run.
 */
const FONTS_DIR = [path.join(HERE, 'fonts'), path.resolve(HERE, '../../../../test/engine/corpus/fonts')].find((d) =>
  existsSync(path.join(d, 'OCRB.otf')),
);
if (!FONTS_DIR) throw new Error(`the OCR-B fonts are not beside ${HERE} nor in test/engine/corpus/fonts`);

/** How a zone's characters are drawn: the font file (none: fontconfig's monospace) and its family. */
export interface ZoneFont {
  name: string;
  family: string;
  file?: string;
}
export const ZONE_FONTS: ZoneFont[] = [
  { name: 'ocr-b', family: 'OCR B', file: path.join(FONTS_DIR, 'OCRB.otf') },
  { name: 'ocr-b-sharp', family: 'OCR B S', file: path.join(FONTS_DIR, 'OCRBS.otf') },
  { name: 'mono-stand-in', family: 'DejaVu Sans Mono' },
];

export type SynthLayout = 'TD1' | 'TD2' | 'TD3';

export interface SynthPerson {
  surname: string;
  given: string;
  number: string;
  country: string;
  birth: string;
  expiry: string;
  sex: 'M' | 'F';
}

/** A small seeded generator, so the corpus is the same on every run. */
export function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SURNAMES = ['OKAFOR', 'NOVAKOVA', 'GARCIA LOPEZ', 'LINDQVIST', 'MULLER', 'DUBOIS', 'KOWALCZYK', 'NGUYEN', 'OLSEN', 'ROSSI', 'TANAKA', 'OBRIEN'];
const GIVEN = ['AMARA', 'JAN PETR', 'LUCIA', 'ELIN', 'KARL HEINZ', 'CHLOE', 'PIOTR', 'THI MAI', 'SIGRID', 'MARCO', 'HARUKI', 'SIOBHAN'];
const COUNTRIES = ['NGA', 'CZE', 'ESP', 'SWE', 'D', 'FRA', 'POL', 'VNM', 'NOR', 'ITA', 'JPN', 'IRL'];
const ALNUM = 'ABCDEFGHJKLMNPRSTUVWXYZ0123456789';

const isoDate = (y: number, m: number, d: number) => `${y}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;

export function person(random: () => number): SynthPerson {
  const pick = <T>(list: T[]) => list[Math.floor(random() * list.length)];
  const i = Math.floor(random() * SURNAMES.length);
  const length = 8 + Math.floor(random() * 2);
  const number = Array.from({ length }, (_, k) => (k < 2 ? ALNUM[Math.floor(random() * 23)] : pick([...ALNUM]))).join('');
  return {
    surname: SURNAMES[i],
    given: GIVEN[i],
    number,
    country: COUNTRIES[i],
    birth: isoDate(1950 + Math.floor(random() * 55), 1 + Math.floor(random() * 12), 1 + Math.floor(random() * 28)),
    expiry: isoDate(2027 + Math.floor(random() * 9), 1 + Math.floor(random() * 12), 1 + Math.floor(random() * 28)),
    sex: random() < 0.5 ? 'F' : 'M',
  };
}

const yymmdd = (iso: string) => iso.slice(2, 4) + iso.slice(5, 7) + iso.slice(8, 10);
const pad = (value: string, length: number) => (value + '<'.repeat(length)).slice(0, length);
const dated = (iso: string) => yymmdd(iso) + checkDigit(yymmdd(iso));

/** The zone of a person in a layout, with real check digits. */
export function zoneOf(p: SynthPerson, layout: SynthLayout): string[] {
  const names = `${p.surname.replace(/ /g, '<')}<<${p.given.replace(/ /g, '<')}`;
  const country = pad(p.country, 3);
  const number = pad(p.number, 9);
  if (layout === 'TD1') {
    const l1 = `I<${country}${number}${checkDigit(number)}${pad('', 15)}`;
    const head = `${dated(p.birth)}${p.sex}${dated(p.expiry)}${country}${pad('', 11)}`;
    const composite = l1.slice(5, 30) + head.slice(0, 7) + head.slice(8, 15) + head.slice(18, 29);
    return [l1, head + checkDigit(composite), pad(names, 30)];
  }
  const length = layout === 'TD3' ? 44 : 36;
  const optional = layout === 'TD3' ? pad('', 14) + checkDigit(pad('', 14)) : pad('', 7);
  const parts = [number + checkDigit(number), country, dated(p.birth), p.sex, dated(p.expiry), optional];
  const composite = parts[0] + parts[2] + parts[4] + parts[5];
  return [pad(`${layout === 'TD3' ? 'P<' : 'I<'}${country}${names}`, length), parts.join('') + checkDigit(composite)];
}

/** Card size in pixels (12 px/mm: TD1 85.6 x 54 mm, TD2 105 x 74 mm, TD3 125 x 88 mm). */
export const CARD: Record<SynthLayout, { width: number; height: number }> = {
  TD1: { width: 1027, height: 648 },
  TD2: { width: 1260, height: 888 },
  TD3: { width: 1500, height: 1056 },
};
/** ICAO 9303: ten characters to 25.4 mm, lines 3 mm apart (center to center ~4 mm). */
const PITCH = 30.5;
const LINE_STEP = 50;

export interface RenderStyle {
  font: ZoneFont;
  /** Extra space between zone characters, in Pango units (1/1024 pt) before the line is fitted to the pitch. */
  letterSpacing: number;
  background: 'plain' | 'guilloche' | 'dark';
  ink: string;
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');

/** One zone line drawn in its font, then fitted to the ICAO pitch (so spacing changes glyph-to-gap ratio). */
async function zoneLine(line: string, style: RenderStyle): Promise<Buffer> {
  const text = `<span foreground="${style.ink}" letter_spacing="${style.letterSpacing}">${esc(line)}</span>`;
  const rendered = await sharp({ text: { text, font: `${style.font.family} 18`, fontfile: style.font.file, dpi: 144, rgba: true } }).png().toBuffer();
  const { height = 40 } = await sharp(rendered).metadata();
  return sharp(rendered).resize({ width: Math.round(line.length * PITCH), height, fit: 'fill' }).png().toBuffer();
}

function backgroundSvg(width: number, height: number, style: RenderStyle, random: () => number): string {
  const base = style.background === 'dark' ? '#9fb0c4' : style.background === 'plain' ? '#f4f1ea' : '#e3ece6';
  let lines = '';
  if (style.background !== 'plain') {
    for (let k = 0; k < 26; k++) {
      const phase = random() * Math.PI * 2;
      const amplitude = 10 + random() * 30;
      const y0 = (k / 26) * height;
      const points = Array.from({ length: 40 }, (_, i) => `${(i / 39) * width},${y0 + Math.sin(phase + i / 3) * amplitude}`).join(' ');
      lines += `<polyline points="${points}" fill="none" stroke="${style.background === 'dark' ? '#7d8fa6' : '#b9cdc0'}" stroke-width="1.4"/>`;
    }
  }
  return `<rect width="100%" height="100%" rx="28" fill="${base}"/>${lines}`;
}

/** A document of the layout for the person, drawn flat (the conditions then photograph or scan it). */
export async function renderSynthetic(p: SynthPerson, layout: SynthLayout, style: RenderStyle, random: () => number): Promise<Buffer> {
  const { width, height } = CARD[layout];
  const zone = zoneOf(p, layout);
  const label = (x: number, y: number, caption: string, value: string) =>
    `<text x="${x}" y="${y}" font-family="DejaVu Sans" font-size="16" fill="#4a5568">${esc(caption)}</text><text x="${x}" y="${y + 30}" font-family="DejaVu Sans" font-weight="bold" font-size="25" fill="#1b1f2a">${esc(value)}</text>`;
  const left = Math.round(width * 0.3);
  const body =
    backgroundSvg(width, height, style, random) +
    `<text x="40" y="64" font-family="DejaVu Serif" font-size="34" font-weight="bold" fill="#23395d">${layout === 'TD3' ? 'PASSPORT' : 'IDENTITY CARD'} · ${p.country}</text>` +
    `<rect x="40" y="100" width="${left - 80}" height="${Math.round(height * 0.42)}" rx="8" fill="#aeb8c2"/>` +
    label(left, 120, 'Surname', p.surname) + label(left, 185, 'Given names', p.given) + label(left, 250, 'Date of birth', p.birth) +
    label(left + 300, 250, 'Document No.', p.number) + (layout === 'TD1' ? '' : label(left, 315, 'Date of expiry', p.expiry));
  const base = await sharp(Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">${body}</svg>`)).png().toBuffer();
  const lines = await Promise.all(zone.map((line) => zoneLine(line, style)));
  const bottom = height - 40;
  const composites = lines.map((input, i) => ({ input, left: Math.round((width - zone[i].length * PITCH) / 2), top: Math.round(bottom - (zone.length - i) * LINE_STEP) }));
  return sharp(base).composite(composites).flatten({ background: '#ffffff' }).png().toBuffer();
}
