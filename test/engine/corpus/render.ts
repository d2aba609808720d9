import bwipjs from 'bwip-js';
import sharp from 'sharp';
import { type Holder, printedDate, usDate } from './documents.js';

/*
 * Documents drawn as SVG and rasterised by sharp (librsvg). Text uses the DejaVu fonts
 * through fontconfig (a monospace stands in for OCR-B in the machine-readable zone); the
 * barcode is a real PDF417 from bwip-js. Nothing here is a photograph of a real document.
 */
const MONO = 'DejaVu Sans Mono, monospace';
const SANS = 'DejaVu Sans, sans-serif';
const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');

const text = (x: number, y: number, size: number, value: string, family = SANS, weight = 'normal') =>
  `<text x="${x}" y="${y}" font-family="${family}" font-size="${size}" font-weight="${weight}" fill="#1b1f2a">${esc(value)}</text>`;

/** A labelled field as documents print it: a small caption, the value below. */
const field = (x: number, y: number, label: string, value: string) => text(x, y, 17, label) + text(x, y + 30, 25, value, SANS, 'bold');

const portrait = (x: number, y: number, w: number, h: number) =>
  `<rect x="${x}" y="${y}" width="${w}" height="${h}" rx="6" fill="#aeb8c2"/><circle cx="${x + w / 2}" cy="${y + h * 0.38}" r="${w * 0.24}" fill="#8895a2"/>` +
  `<ellipse cx="${x + w / 2}" cy="${y + h * 0.95}" rx="${w * 0.42}" ry="${h * 0.32}" fill="#8895a2"/>`;

const mrzBlock = (lines: string[], width: number, bottom: number, size: number) =>
  lines.map((line, i) => text(40, bottom - (lines.length - 1 - i) * size * 1.45, size, line, MONO)).join('') +
  `<rect x="0" y="${bottom - lines.length * size * 1.45 - 10}" width="${width}" height="2" fill="#c9d2cc"/>`;

const svgDoc = (w: number, h: number, background: string, body: string) =>
  Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}"><rect width="100%" height="100%" rx="24" fill="${background}"/>${body}</svg>`);

export interface Printed {
  number?: string;
  birth?: string;
}

/** A passport data page (TD3 zone at the bottom); `printed` overrides what the visual zone shows. */
export async function passportPage(h: Holder, mrz: string[], printed: Printed = {}): Promise<Buffer> {
  const W = 1400;
  const H = 980;
  const body =
    text(40, 70, 34, 'PASSPORT', SANS, 'bold') + text(330, 70, 24, `Issuing State ${h.country}`) +
    portrait(40, 120, 250, 320) +
    field(330, 130, 'Surname', h.lastName) + field(330, 200, 'Given names', h.firstName) +
    field(330, 270, 'Nationality', h.nationality) + field(800, 270, 'Sex', h.sex) +
    field(330, 340, 'Date of birth', printedDate(printed.birth ?? h.birth)) +
    field(800, 340, 'Passport No.', printed.number ?? h.number) +
    field(330, 410, 'Date of expiry', printedDate(h.expiry)) +
    mrzBlock(mrz, W, H - 60, 46);
  return sharp(svgDoc(W, H, '#e4ece3', body)).png().toBuffer();
}

/** An identity card front (printed fields only). */
export async function idCardFront(h: Holder, printed: Printed = {}): Promise<Buffer> {
  const body =
    text(40, 70, 32, 'IDENTITY CARD', SANS, 'bold') + portrait(40, 110, 260, 330) +
    field(340, 120, 'Surname', h.lastName) + field(340, 190, 'Given names', h.firstName) +
    field(340, 260, 'Date of birth', printedDate(printed.birth ?? h.birth)) +
    field(340, 330, 'Document No.', printed.number ?? h.number) +
    field(340, 400, 'Date of expiry', printedDate(h.expiry)) + field(800, 400, 'Sex', h.sex);
  return sharp(svgDoc(1200, 760, '#e3e8f0', body)).png().toBuffer();
}

/** An identity card back: the TD1 zone. */
export async function idCardBack(mrz: string[]): Promise<Buffer> {
  const body = text(40, 80, 24, 'Address: 12 CANAL STREET') + mrzBlock(mrz, 1200, 700, 48);
  return sharp(svgDoc(1200, 760, '#e3e8f0', body)).png().toBuffer();
}

/** A US-style driver licence front (printed fields, US dates). */
export async function licenceFront(h: Holder, printed: Printed = {}): Promise<Buffer> {
  const body =
    text(40, 70, 32, 'DRIVER LICENSE', SANS, 'bold') + text(760, 70, 24, 'USA CA') + portrait(40, 110, 260, 330) +
    field(340, 120, 'DL', printed.number ?? h.number) + field(340, 190, 'LN', h.lastName) + field(340, 260, 'FN', h.firstName) +
    field(340, 330, 'DOB', usDate(printed.birth ?? h.birth)) + field(340, 400, 'EXP', usDate(h.expiry)) + field(760, 400, 'SEX', h.sex);
  return sharp(svgDoc(1200, 760, '#f0ebe0', body)).png().toBuffer();
}

/** A licence back: a PDF417 carrying AAMVA data. */
export async function licenceBack(data: string): Promise<Buffer> {
  const code: Buffer = await bwipjs.toBuffer({ bcid: 'pdf417', text: data, scale: 3, columns: 8, eclevel: 3, backgroundcolor: 'FFFFFF', paddingwidth: 12, paddingheight: 12 } as bwipjs.RenderOptions);
  const meta = await sharp(code).metadata();
  const width = Math.min(1080, meta.width ?? 1080);
  const resized = await sharp(code).resize({ width }).png().toBuffer();
  const base = svgDoc(1200, 760, '#f0ebe0', text(40, 70, 24, 'This card is the property of the issuing state'));
  return sharp(base).composite([{ input: resized, left: 60, top: 150 }]).png().toBuffer();
}

/** A blank surface, as when the camera saw no document. */
export const blankSurface = () =>
  sharp({ create: { width: 1200, height: 800, channels: 3, background: { r: 142, g: 120, b: 96 } } }).jpeg().toBuffer();
