import sharp from 'sharp';

/** Measurements of one image, taken on a copy scaled to a fixed width so they compare across sizes. */
export interface QualityMetrics {
  width: number;
  height: number;
  /** Variance of the Laplacian (higher is sharper); on the 1000 px copy. */
  sharpness: number;
  /** Share of the image washed out to near white after smoothing (a reflection, not white print). */
  glare: number;
  /** Standard deviation of the grey levels: near 0 means nothing is pictured. */
  contrast: number;
}

export type QualityProblem = 'low_resolution' | 'blurred' | 'glare' | 'no_content';

export interface QualityReport {
  metrics: QualityMetrics;
  problems: QualityProblem[];
}

/**
 * Thresholds set on the corpus (test/engine/corpus): the clean and lightly blurred renderings
 * read, the heavily blurred and 360 px ones do not. A real camera pipeline should re-tune them.
 */
export const QUALITY_LIMITS = { minShortSide: 480, minSharpness: 60, maxGlare: 0.09, minContrast: 12 };
const WORK_WIDTH = 1000;

function laplacianVariance(pixels: Buffer, width: number, height: number): number {
  let sum = 0;
  let sumSq = 0;
  let n = 0;
  for (let y = 1; y < height - 1; y++) {
    for (let x = 1; x < width - 1; x++) {
      const i = y * width + x;
      const v = pixels[i - 1] + pixels[i + 1] + pixels[i - width] + pixels[i + width] - 4 * pixels[i];
      sum += v;
      sumSq += v * v;
      n++;
    }
  }
  const mean = sum / n;
  return sumSq / n - mean * mean;
}

/** Resolution, blur, glare and whether anything is pictured at all. */
export async function measureQuality(image: Buffer): Promise<QualityReport> {
  const oriented = sharp(image).rotate();
  const meta = await oriented.metadata();
  const portrait = (meta.orientation ?? 1) >= 5;
  const width = (portrait ? meta.height : meta.width) ?? 0;
  const height = (portrait ? meta.width : meta.height) ?? 0;
  const grey = await sharp(image).rotate().greyscale().resize({ width: WORK_WIDTH }).raw().toBuffer({ resolveWithObject: true });
  const smooth = await sharp(grey.data, { raw: grey.info }).blur(8).raw().toBuffer();
  let bright = 0;
  for (const v of smooth) if (v >= 245) bright++;
  const stats = await sharp(grey.data, { raw: grey.info }).stats();
  const metrics: QualityMetrics = {
    width,
    height,
    sharpness: Math.round(laplacianVariance(grey.data, grey.info.width, grey.info.height)),
    glare: Math.round((bright / smooth.length) * 1000) / 1000,
    contrast: Math.round(stats.channels[0].stdev * 10) / 10,
  };
  const problems: QualityProblem[] = [];
  if (metrics.contrast < QUALITY_LIMITS.minContrast) problems.push('no_content');
  if (Math.min(width, height) < QUALITY_LIMITS.minShortSide) problems.push('low_resolution');
  if (metrics.sharpness < QUALITY_LIMITS.minSharpness) problems.push('blurred');
  if (metrics.glare > QUALITY_LIMITS.maxGlare) problems.push('glare');
  return { metrics, problems };
}
