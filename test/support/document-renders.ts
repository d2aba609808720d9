// Renders for the document check's tests beyond the shared corpus (test/engine/corpus, which
// another branch owns): letter-spaced zones, visas, TD2, and the captures the issue names
// (EXIF-sideways, turned, tilted on a desk, white-paper scans, specular glare, image bombs).
// Everything is drawn here; nothing is a photograph of a real document.
import sharp from 'sharp';
import { checkDigit } from '../../src/engine/document/mrz.js';

const MONO = 'DejaVu Sans Mono, monospace';
const SANS = 'DejaVu Sans, sans-serif';
const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');
const pad = (value: string, length: number) => (value + '<'.repeat(length)).slice(0, length);
const withDigit = (value: string) => value + checkDigit(value);
const yymmdd = (iso: string) => iso.slice(2, 4) + iso.slice(5, 7) + iso.slice(8, 10);

export interface Person {
  last: string;
  first: string;
  number: string;
  country: string;
  birth: string;
  expiry: string;
  sex: 'M' | 'F';
  optional?: string;
}

export const BERIT: Person = {
  last: 'HALVORSEN',
  first: 'BERIT',
  number: 'NK3094517',
  country: 'UTO',
  birth: '1988-03-09',
  expiry: '2033-11-02',
  sex: 'F',
  optional: 'ZE184226B',
};

/** TD3 (passport) or MRV-A (visa, code V) lines with real check digits. */
export function zone44(p: Person, code = 'P'): [string, string] {
  const n = withDigit(pad(p.number, 9));
  const birth = withDigit(yymmdd(p.birth));
  const expiry = withDigit(yymmdd(p.expiry));
  const l1 = pad(`${pad(code, 2)}${p.country}${p.last}<<${p.first.replace(/ /g, '<')}`, 44);
  if (code.startsWith('V')) return [l1, pad(`${n}${p.country}${birth}${p.sex}${expiry}${p.optional ?? ''}`, 44)];
  const opt = withDigit(pad(p.optional ?? '', 14));
  return [l1, `${n}${p.country}${birth}${p.sex}${expiry}${opt}${checkDigit(n + birth + expiry + opt)}`];
}

/** TD2 lines (2 x 36) with real check digits. */
export function zone36(p: Person, code = 'I'): [string, string] {
  const n = withDigit(pad(p.number, 9));
  const birth = withDigit(yymmdd(p.birth));
  const expiry = withDigit(yymmdd(p.expiry));
  const opt = pad(p.optional ?? '', 7);
  return [
    pad(`${pad(code, 2)}${p.country}${p.last}<<${p.first.replace(/ /g, '<')}`, 36),
    `${n}${p.country}${birth}${p.sex}${expiry}${opt}${checkDigit(n + birth + expiry + opt)}`,
  ];
}

const text = (x: number, y: number, size: number, value: string, family = SANS, extra = '') =>
  `<text x="${x}" y="${y}" font-family="${family}" font-size="${size}" fill="#1b1f2a" ${extra}>${esc(value)}</text>`;
const printedDate = (iso: string) =>
  `${iso.slice(8, 10)} ${['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'][Number(iso.slice(5, 7)) - 1]} ${iso.slice(0, 4)}`;

export interface PageOptions {
  width?: number;
  height?: number;
  /** Extra space between zone characters (px), as OCR-B zones are printed at a fixed 10 per inch. */
  letterSpacing?: number;
  /** Zone font size (px). */
  zoneSize?: number;
  /** A printed number that differs from the zone's (the printed side says another number). */
  printedNumber?: string;
  title?: string;
  background?: string;
}

/** A data page: labelled printed fields, a personal number elsewhere on the page, the zone at the foot. */
export async function dataPage(p: Person, lines: string[], o: PageOptions = {}): Promise<Buffer> {
  const W = o.width ?? 1250;
  const H = o.height ?? 880;
  const size = o.zoneSize ?? 34;
  const spacing = o.letterSpacing ?? 0;
  const field = (x: number, y: number, label: string, value: string) =>
    text(x, y, 16, label) + text(x, y + 30, 24, value, SANS, 'font-weight="bold"');
  const zone = lines
    .map((line, i) =>
      text(36, H - 50 - (lines.length - 1 - i) * size * 1.5, size, line, MONO, `letter-spacing="${spacing}"`),
    )
    .join('');
  const body =
    text(36, 62, 32, o.title ?? 'PASSPORT', SANS, 'font-weight="bold"') +
    text(420, 62, 20, `Code ${p.country}`) +
    `<rect x="36" y="100" width="240" height="300" rx="6" fill="#b3bcc6"/>` +
    field(310, 110, 'Surname', p.last) +
    field(310, 180, 'Given names', p.first) +
    field(310, 250, 'Date of birth', printedDate(p.birth)) +
    field(740, 250, 'Passport No.', o.printedNumber ?? p.number) +
    field(310, 320, 'Date of expiry', printedDate(p.expiry)) +
    field(740, 320, 'Personal No.', '19880309-4417') +
    field(740, 110, 'Date of issue', printedDate('2023-11-03'));
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}"><rect width="100%" height="100%" rx="22" fill="${o.background ?? '#e6ebe1'}"/>${body}${zone}</svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

const DESK = { r: 118, g: 94, b: 70 };

/** Photographed on a desk: a margin of desk, a tilt, optional blur, JPEG, optionally scaled. */
export async function onDesk(
  image: Buffer,
  o: { angle?: number; blur?: number; quality?: number; width?: number; margin?: number } = {},
): Promise<Buffer> {
  const margin = o.margin ?? 120;
  let tilted = await sharp(image)
    .flatten({ background: DESK })
    .rotate(o.angle ?? 0, { background: DESK })
    .extend({ top: margin, bottom: margin, left: margin, right: margin, background: DESK })
    .png()
    .toBuffer();
  if (o.blur) tilted = await sharp(tilted).blur(o.blur).png().toBuffer();
  if (o.width) tilted = await sharp(tilted).resize({ width: o.width }).png().toBuffer();
  return sharp(tilted)
    .jpeg({ quality: o.quality ?? 80 })
    .toBuffer();
}

/** Pixels stored sideways with an EXIF orientation saying how to turn them upright (as phones save). */
export const exifSideways = async (image: Buffer) =>
  sharp(await sharp(image).rotate(-90).toBuffer())
    .jpeg({ quality: 88 })
    .withMetadata({ orientation: 6 })
    .toBuffer();

/** Turned by a right angle with no EXIF to say so. */
export const turned = (image: Buffer, angle: 90 | 180 | 270) => sharp(image).rotate(angle).png().toBuffer();

/** Scanned on white paper: the document on an A4 page at 150 dpi, most of the image white. */
export async function whitePaperScan(image: Buffer, documentWidth = 760): Promise<Buffer> {
  const doc = await sharp(image).resize({ width: documentWidth }).toBuffer();
  return sharp({ create: { width: 1240, height: 1754, channels: 3, background: '#fefefe' } })
    .composite([{ input: doc, left: 110, top: 140 }])
    .jpeg({ quality: 88 })
    .toBuffer();
}

/** A lamp's specular highlight on the laminate, washing out the zone. */
export async function specularGlare(image: Buffer): Promise<Buffer> {
  const { width = 1200, height = 800 } = await sharp(image).metadata();
  const spot = Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><defs><radialGradient id="g"><stop offset="0%" stop-color="#fff" stop-opacity="1"/>` +
      `<stop offset="60%" stop-color="#fff" stop-opacity="0.98"/><stop offset="100%" stop-color="#fff" stop-opacity="0"/></radialGradient></defs>` +
      `<ellipse cx="${width * 0.45}" cy="${height * 0.85}" rx="${width * 0.32}" ry="${height * 0.2}" fill="url(#g)"/></svg>`,
  );
  return sharp(image)
    .composite([{ input: spot }])
    .jpeg({ quality: 85 })
    .toBuffer();
}

/** A 1 x 250 PNG: tiny on the wire, a bomb for any step that scales it to a fixed width. */
export const stripBomb = () =>
  sharp({ create: { width: 1, height: 250, channels: 3, background: '#ffffff' } })
    .png({ compressionLevel: 9 })
    .toBuffer();
