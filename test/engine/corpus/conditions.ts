import sharp from 'sharp';

/** Photographed-looking variants of a clean rendering: what a phone camera does to a document. */
export type Condition = 'clean' | 'photo' | 'rotated' | 'blur_light' | 'blur_heavy' | 'glare' | 'low_resolution';
export const CONDITIONS: Condition[] = ['clean', 'photo', 'rotated', 'blur_light', 'blur_heavy', 'glare', 'low_resolution'];

/** The document on a desk: a margin of wood-coloured background, slight tilt, JPEG compression. */
async function onDesk(image: Buffer, angle: number, quality = 82): Promise<Buffer> {
  const background = { r: 120, g: 96, b: 72 };
  const tilted = await sharp(image).flatten({ background }).rotate(angle, { background }).toBuffer();
  return sharp(tilted).extend({ top: 60, bottom: 60, left: 80, right: 80, background }).jpeg({ quality }).toBuffer();
}

/** A bright elliptical reflection, as a lamp on the laminate makes. */
async function withGlare(image: Buffer): Promise<Buffer> {
  const { width = 1200, height = 800 } = await sharp(image).metadata();
  const spot = Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><defs><radialGradient id="g">` +
      '<stop offset="0%" stop-color="#fff" stop-opacity="1"/><stop offset="55%" stop-color="#fff" stop-opacity="0.97"/><stop offset="100%" stop-color="#fff" stop-opacity="0"/>' +
      `</radialGradient></defs><ellipse cx="${width * 0.5}" cy="${height * 0.6}" rx="${width * 0.3}" ry="${height * 0.32}" fill="url(#g)"/></svg>`,
  );
  return sharp(image).composite([{ input: spot }]).jpeg({ quality: 85 }).toBuffer();
}

/** Applies one condition to a clean PNG rendering. */
export async function applyCondition(image: Buffer, condition: Condition): Promise<Buffer> {
  switch (condition) {
    case 'clean':
      return image;
    case 'photo':
      return onDesk(image, 0);
    case 'rotated':
      return onDesk(image, 3);
    case 'blur_light':
      return sharp(await onDesk(image, 0)).blur(1.2).jpeg({ quality: 82 }).toBuffer();
    case 'blur_heavy':
      return sharp(await onDesk(image, 0)).blur(6).jpeg({ quality: 82 }).toBuffer();
    case 'glare':
      return withGlare(await onDesk(image, 0));
    case 'low_resolution':
      return sharp(image).resize({ width: 360 }).jpeg({ quality: 70 }).toBuffer();
  }
}
