import sharp from 'sharp';
import { CARD, type RenderStyle, type SynthLayout, type SynthPerson, ZONE_FONTS, person, renderSynthetic, seeded } from './robustness-render.js';

/*
 * What real captures vary, applied to synthetic documents: the way the zone is printed (font
 * cut, letter spacing, background, ink), then the capture (a flat scan, a phone photo on a
 * desk, uneven light, perspective, a quarter-turned or upside-down picture, an EXIF
 * orientation tag, skew up to 30°, heavy JPEG, a small scan with ~10 px characters).
 * Reported apart from the real pictures: robustness, not accuracy.
 */
export type RobustnessCondition =
  | 'scan' | 'letter_spacing' | 'background' | 'photo_desk' | 'uneven_light' | 'perspective' | 'rotated_90' | 'rotated_180' | 'rotated_270'
  | 'exif_orientation' | 'skew_10' | 'skew_20' | 'skew_30' | 'jpeg_q25' | 'small_scan';

export const ROBUSTNESS_CONDITIONS: RobustnessCondition[] = [
  'scan', 'letter_spacing', 'background', 'photo_desk', 'uneven_light', 'perspective', 'rotated_90', 'rotated_180', 'rotated_270',
  'exif_orientation', 'skew_10', 'skew_20', 'skew_30', 'jpeg_q25', 'small_scan',
];

export interface RobustnessCase {
  id: string;
  condition: RobustnessCondition;
  layout: SynthLayout;
  font: string;
  truth: { document_number: string; date_of_birth: string; expiry_date: string };
  person: SynthPerson;
  image(): Promise<Buffer>;
}

const DESK = { r: 118, g: 92, b: 70 };

/** The picture on a desk: a margin of background, a turn of `angle` degrees, JPEG. */
async function onDesk(image: Buffer, angle: number, quality = 85): Promise<Buffer> {
  const turned = await sharp(image).rotate(angle, { background: DESK }).toBuffer();
  return sharp(turned).extend({ top: 70, bottom: 70, left: 90, right: 90, background: DESK }).jpeg({ quality }).toBuffer();
}

/** A light falling off across the page and a soft shadow band, as a desk lamp gives. */
async function unevenLight(image: Buffer): Promise<Buffer> {
  const { width = 1000, height = 700 } = await sharp(image).metadata();
  const overlay = Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><defs><linearGradient id="l" x1="0" y1="0" x2="1" y2="0.4">` +
      '<stop offset="0" stop-color="#ffffff"/><stop offset="1" stop-color="#5a5148"/></linearGradient></defs>' +
      `<rect width="100%" height="100%" fill="url(#l)"/><rect x="${width * 0.55}" y="0" width="${width * 0.12}" height="${height}" fill="#3a3a3a" opacity="0.35"/></svg>`,
  );
  return sharp(image).composite([{ input: overlay, blend: 'multiply' }]).jpeg({ quality: 88 }).toBuffer();
}

/**
 * A keystone view (the phone held below the page): each output row samples a narrower or
 * wider source row, so the top edge is shorter than the bottom one by `squeeze`.
 */
async function perspective(image: Buffer, squeeze = 0.16): Promise<Buffer> {
  const { data, info } = await sharp(image).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const { width, height, channels } = info;
  const out = Buffer.alloc(width * height * channels, 0);
  for (let y = 0; y < height; y++) {
    const shrink = squeeze * (1 - y / (height - 1));
    const span = width * (1 - shrink);
    const x0 = (width - span) / 2;
    const sy = Math.min(height - 1, Math.round(y * (1 - shrink * 0.25)));
    for (let x = 0; x < width; x++) {
      const at = (y * width + x) * channels;
      const u = (x - x0) / span;
      if (u < 0 || u > 1) {
        out[at] = DESK.r;
        out[at + 1] = DESK.g;
        out[at + 2] = DESK.b;
        continue;
      }
      const from = (sy * width + Math.min(width - 1, Math.round(u * (width - 1)))) * channels;
      for (let c = 0; c < channels; c++) out[at + c] = data[from + c];
    }
  }
  return sharp(out, { raw: { width, height, channels } }).jpeg({ quality: 88 }).toBuffer();
}

/** Grain a phone sensor adds in indoor light. */
async function grain(image: Buffer, random: () => number, amount = 14): Promise<Buffer> {
  const { data, info } = await sharp(image).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  for (let i = 0; i < data.length; i++) data[i] = Math.max(0, Math.min(255, data[i] + (random() - 0.5) * amount));
  return sharp(data, { raw: info }).png().toBuffer();
}

/** One condition applied to a flat rendering. */
export async function capture(flat: Buffer, condition: RobustnessCondition, layout: SynthLayout, random: () => number): Promise<Buffer> {
  const scan = (image: Buffer) => sharp(image).extend({ top: 30, bottom: 30, left: 30, right: 30, background: '#ffffff' }).jpeg({ quality: 90 }).toBuffer();
  switch (condition) {
    case 'scan':
    case 'letter_spacing':
    case 'background':
      return scan(flat);
    case 'photo_desk':
      return sharp(await grain(await onDesk(flat, 4, 90), random)).blur(0.8).jpeg({ quality: 82 }).toBuffer();
    case 'uneven_light':
      return unevenLight(await onDesk(flat, 2));
    case 'perspective':
      return perspective(await onDesk(flat, 0));
    case 'rotated_90':
      return sharp(await onDesk(flat, 0)).rotate(90).jpeg({ quality: 88 }).toBuffer();
    case 'rotated_180':
      return sharp(await onDesk(flat, 0)).rotate(180).jpeg({ quality: 88 }).toBuffer();
    case 'rotated_270':
      return sharp(await onDesk(flat, 0)).rotate(270).jpeg({ quality: 88 }).toBuffer();
    case 'exif_orientation':
      // Pixels stored as the sensor saw them (a quarter turn), the tag saying how to show them: a phone's JPEG.
      return sharp(await onDesk(flat, 0)).rotate(-90).withMetadata({ orientation: 6 }).jpeg({ quality: 88 }).toBuffer();
    case 'skew_10':
      return onDesk(flat, 10);
    case 'skew_20':
      return onDesk(flat, -20);
    case 'skew_30':
      return onDesk(flat, 30);
    case 'jpeg_q25':
      return sharp(await onDesk(flat, 0)).jpeg({ quality: 25, chromaSubsampling: '4:2:0' }).toBuffer();
    case 'small_scan': {
      // Zone characters about 10 px high, as a 100 dpi flatbed scan of a card gives.
      const width = Math.round(CARD[layout].width * (10 / 25));
      return sharp(await scan(flat)).resize({ width }).jpeg({ quality: 85 }).toBuffer();
    }
  }
}

const LAYOUTS: SynthLayout[] = ['TD3', 'TD1', 'TD2'];

/** The style a case is printed in: the condition's own variation, else a rotation through fonts and backgrounds. */
function styleFor(condition: RobustnessCondition, k: number): RenderStyle {
  // Fonts rotate out of step with layouts, so no font is tied to one layout.
  const font = ZONE_FONTS[(k + Math.floor(k / LAYOUTS.length)) % ZONE_FONTS.length];
  if (condition === 'letter_spacing') return { font: ZONE_FONTS[k % 2], letterSpacing: k % 2 === 0 ? -1024 : 6144, background: 'plain', ink: '#111111' };
  if (condition === 'background') return { font: ZONE_FONTS[k % 2], letterSpacing: 1024, background: k % 2 === 0 ? 'guilloche' : 'dark', ink: k % 2 === 0 ? '#2b2b2b' : '#0c1a2a' };
  return { font, letterSpacing: 1024, background: k % 2 === 0 ? 'guilloche' : 'plain', ink: '#161616' };
}

/**
 * The robustness corpus: `perCondition` documents under each condition, each a different
 * person, layouts and fonts rotating, all from one seed (the same corpus on every run).
 */
export function robustnessCases(perCondition = 1, conditions: RobustnessCondition[] = ROBUSTNESS_CONDITIONS, seed = 26): RobustnessCase[] {
  const random = seeded(seed);
  const cases: RobustnessCase[] = [];
  let k = 0;
  for (const condition of conditions) {
    for (let i = 0; i < perCondition; i++, k++) {
      const p = person(random);
      const layout = LAYOUTS[k % LAYOUTS.length];
      const style = styleFor(condition, k);
      const caseSeed = Math.floor(random() * 1e9);
      cases.push({
        id: `${condition}/${layout}/${style.font.name}`,
        condition,
        layout,
        font: style.font.name,
        person: p,
        truth: { document_number: p.number, date_of_birth: p.birth, expiry_date: p.expiry },
        image: async () => {
          const r = seeded(caseSeed);
          return capture(await renderSynthetic(p, layout, style, r), condition, layout, r);
        },
      });
    }
  }
  return cases;
}
