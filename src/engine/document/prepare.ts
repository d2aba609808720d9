import sharp from 'sharp';

/** Width OCR works at: an MRZ character is then ~28 px wide on a passport page. */
const OCR_WIDTH = 1400;
const SKEW_WIDTH = 500;
const SKEW_STEP = 0.5;
const SKEW_MAX = 6;

/**
 * How sharply text lines stand out in the row profile of ink edges (aligned lines peak).
 * Edges rather than dark pixels, so a photo or a filled block does not outweigh the text.
 */
function profileScore(pixels: Buffer, width: number, height: number): number {
  let score = 0;
  let previous = 0;
  for (let y = 0; y < height; y++) {
    let dark = 0;
    for (let x = 1; x < width; x++) if (Math.abs(pixels[y * width + x] - pixels[y * width + x - 1]) > 60) dark++;
    if (y > 0) score += (dark - previous) ** 2;
    previous = dark;
  }
  return score;
}

/** The rotation (degrees) that best aligns text rows, searched in half-degree steps. */
export async function estimateSkew(grey: Buffer): Promise<number> {
  const small = await sharp(grey).resize({ width: SKEW_WIDTH }).raw().toBuffer({ resolveWithObject: true }).then(({ data, info }) => sharp(data, { raw: info }).png().toBuffer());
  const score = async (angle: number) => {
    const { data, info } = await sharp(small).rotate(angle, { background: '#ffffff' }).extractChannel(0).raw().toBuffer({ resolveWithObject: true });
    return profileScore(data, info.width, info.height);
  };
  let best = { angle: 0, score: await score(0) };
  // Whole degrees first, then half a degree either side of the best.
  for (let angle = -SKEW_MAX; angle <= SKEW_MAX; angle += 1) {
    const s = angle === 0 ? best.score : await score(angle);
    if (s > best.score * 1.02) best = { angle, score: s };
  }
  for (const angle of [best.angle - SKEW_STEP, best.angle + SKEW_STEP]) {
    const s = await score(angle);
    if (s > best.score * 1.02) best = { angle, score: s };
  }
  return best.angle;
}

/** Grey, EXIF-oriented, scaled to the OCR width, contrast-stretched and deskewed. */
export async function prepareForOcr(image: Buffer): Promise<Buffer> {
  const grey = await sharp(image).rotate().flatten({ background: '#ffffff' }).greyscale().resize({ width: OCR_WIDTH }).normalise().png().toBuffer();
  const angle = await estimateSkew(grey);
  if (angle === 0) return grey;
  return sharp(grey).rotate(angle, { background: '#ffffff' }).png().toBuffer();
}

/** The lower part of a prepared image, where a passport or card prints its zone. */
export async function lowerPart(prepared: Buffer, share = 0.45): Promise<Buffer> {
  const { width = OCR_WIDTH, height = 1000 } = await sharp(prepared).metadata();
  const top = Math.floor(height * (1 - share));
  return sharp(prepared).extract({ left: 0, top, width, height: height - top }).png().toBuffer();
}

/** The image turned upside down (a capture held the wrong way). */
export const upsideDown = (prepared: Buffer) => sharp(prepared).rotate(180).png().toBuffer();
