// Client-side hints before an upload: too small, too dark, blurry. They advise; the person decides.

const MIN_SIDE = 480;
const DARK_MEAN = 45;
const BLUR_VARIANCE = 40;

/** Returns hint keys for an image blob; [] for what the browser cannot decode (PDF, HEIC). */
export async function imageHints(blob) {
  if (!blob.type.startsWith('image/')) return [];
  let bitmap;
  try {
    bitmap = await createImageBitmap(blob);
  } catch {
    return [];
  }
  const hints = [];
  if (Math.min(bitmap.width, bitmap.height) < MIN_SIDE) hints.push('hint.small');
  // Measured on a downscaled copy: enough for light and sharpness, cheap on a phone.
  const scale = Math.min(1, 320 / bitmap.width);
  const w = Math.max(1, Math.round(bitmap.width * scale));
  const hgt = Math.max(1, Math.round(bitmap.height * scale));
  const canvas = new OffscreenCanvas(w, hgt);
  const ctx = canvas.getContext('2d', { willReadFrequently: true });
  ctx.drawImage(bitmap, 0, 0, w, hgt);
  bitmap.close();
  const { data } = ctx.getImageData(0, 0, w, hgt);
  const gray = new Float32Array(w * hgt);
  let sum = 0;
  for (let i = 0; i < gray.length; i++) {
    gray[i] = 0.299 * data[i * 4] + 0.587 * data[i * 4 + 1] + 0.114 * data[i * 4 + 2];
    sum += gray[i];
  }
  if (sum / gray.length < DARK_MEAN) hints.push('hint.dark');
  if (laplacianVariance(gray, w, hgt) < BLUR_VARIANCE) hints.push('hint.blurry');
  return hints;
}

/** Variance of the Laplacian: low when edges are soft (the usual blur measure). */
function laplacianVariance(gray, w, hgt) {
  let sum = 0;
  let sumSq = 0;
  let n = 0;
  for (let y = 1; y < hgt - 1; y++) {
    for (let x = 1; x < w - 1; x++) {
      const i = y * w + x;
      const lap = gray[i - w] + gray[i + w] + gray[i - 1] + gray[i + 1] - 4 * gray[i];
      sum += lap;
      sumSq += lap * lap;
      n++;
    }
  }
  if (n === 0) return 0;
  const mean = sum / n;
  return sumSq / n - mean * mean;
}
