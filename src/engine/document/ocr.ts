import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createWorker, OEM, PSM, type Worker } from 'tesseract.js';

/*
 * Two tesseract workers per process, each created on first use and reused: the zone is read
 * with an OCR model trained on MRZ lines (models/mrz, Doubango's tesseractMRZ, BSD-3-Clause),
 * the printed fields with the English model from the @tesseract.js-data/eng npm package. Both
 * are read from disk (never a CDN); `cacheMethod: 'none'` keeps tesseract from writing a cache.
 */
const require = createRequire(import.meta.url);
const ENG_PATH = path.join(path.dirname(require.resolve('@tesseract.js-data/eng/package.json')), '4.0.0_best_int');
const MRZ_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789<';

/** models/mrz of the checkout, found upwards from this file (src/, dist/ and dist-eval/ sit at different depths). */
export function mrzModelDir(from = path.dirname(fileURLToPath(import.meta.url))): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'models', 'mrz');
    if (fs.existsSync(path.join(candidate, 'mrz.traineddata'))) return candidate;
    if (path.dirname(dir) === dir) throw new Error('models/mrz/mrz.traineddata not found above ' + from);
  }
}

type Model = 'eng' | 'mrz';
const workers: Partial<Record<Model, Promise<Worker>>> = {};
/** Calls on one process's workers run one at a time (one OCR per thread); this chains them. */
let queue: Promise<unknown> = Promise.resolve();

function ocrWorker(model: Model): Promise<Worker> {
  const options =
    model === 'eng'
      ? { langPath: ENG_PATH, gzip: true, cacheMethod: 'none' }
      : { langPath: mrzModelDir(), gzip: false, cacheMethod: 'none' };
  workers[model] ??= createWorker(model, OEM.LSTM_ONLY, options).catch((error) => {
    delete workers[model];
    throw error;
  });
  return workers[model];
}

/** Loads a model's worker now (a second or so the first time), so that a time budget measures reading only. */
export async function ocrReady(model: Model = 'mrz'): Promise<void> {
  await ocrWorker(model);
}

function serially<T>(task: () => Promise<T>): Promise<T> {
  const run = queue.then(task, task);
  queue = run.catch(() => undefined);
  return run;
}

/** Text of an image restricted to the MRZ alphabet (one block of lines), and the OCR's mean confidence (0-100). */
export function ocrMrz(
  image: Buffer,
  model: Model = 'mrz',
  psm: PSM = PSM.SINGLE_BLOCK,
): Promise<{ text: string; confidence: number }> {
  return serially(async () => {
    const w = await ocrWorker(model);
    await w.setParameters({
      tessedit_char_whitelist: MRZ_ALPHABET,
      tessedit_pageseg_mode: psm,
      preserve_interword_spaces: '0',
      user_defined_dpi: '300',
    });
    const { data } = await w.recognize(image);
    return { text: data.text, confidence: data.confidence };
  });
}

/** Text of an image restricted to the MRZ alphabet (one block of lines), read by the MRZ model or the English one. */
export async function ocrMrzText(image: Buffer, model: Model = 'mrz', psm: PSM = PSM.SINGLE_BLOCK): Promise<string> {
  return (await ocrMrz(image, model, psm)).text;
}

export interface Box {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/** One word of printed text with where it stands and how sure the OCR is (0-100). */
export interface OcrWord {
  text: string;
  confidence: number;
  bbox: Box;
}

/** One line of printed text and its words. */
export interface OcrLine extends OcrWord {
  words: OcrWord[];
}

/** Printed text of an image as lines with boxes and confidences (labels and their values). */
export function ocrLines(image: Buffer): Promise<OcrLine[]> {
  return serially(async () => {
    const w = await ocrWorker('eng');
    await w.setParameters({
      tessedit_char_whitelist: '',
      // Automatic layout (no OSD): on the tuning set it locates as many labels as SPARSE_TEXT for less CPU, far less on a patterned page.
      tessedit_pageseg_mode: PSM.AUTO,
      preserve_interword_spaces: '0',
      user_defined_dpi: '300',
    });
    const { data } = await w.recognize(image, {}, { text: true, blocks: true });
    const lines: OcrLine[] = [];
    for (const block of data.blocks ?? [])
      for (const p of block.paragraphs)
        for (const l of p.lines)
          lines.push({
            text: l.text.trim(),
            confidence: l.confidence,
            bbox: l.bbox,
            words: l.words.map((w) => ({ text: w.text, confidence: w.confidence, bbox: w.bbox })),
          });
    return lines;
  });
}

/** Free text of an image (the printed, labelled fields of a document). */
export async function ocrText(image: Buffer): Promise<string> {
  return (await ocrLines(image)).map((l) => l.text).join('\n');
}

/** Ends the workers (tests and the eval script, so the process can exit). */
export async function stopOcr(): Promise<void> {
  const current = Object.values(workers);
  for (const model of Object.keys(workers) as Model[]) delete workers[model];
  await Promise.all(current.map(async (w) => (await w).terminate()));
}
