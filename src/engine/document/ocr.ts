import { createRequire } from 'node:module';
import path from 'node:path';
import { createWorker, OEM, PSM, type Worker } from 'tesseract.js';

/*
 * One tesseract worker per process, created on first use and reused: loading the English
 * model takes about a second. The language data comes from the @tesseract.js-data/eng npm
 * package (never a CDN); `cacheMethod: 'none'` keeps tesseract from writing a cache file.
 */
const require = createRequire(import.meta.url);
const LANG_PATH = path.join(path.dirname(require.resolve('@tesseract.js-data/eng/package.json')), '4.0.0_best_int');
const MRZ_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789<';

let worker: Promise<Worker> | null = null;
/** Calls on one worker run one at a time; this chains them. */
let queue: Promise<unknown> = Promise.resolve();

function ocrWorker(): Promise<Worker> {
  worker ??= createWorker('eng', OEM.LSTM_ONLY, { langPath: LANG_PATH, gzip: true, cacheMethod: 'none' }).catch(
    (error) => {
      worker = null;
      throw error;
    },
  );
  return worker;
}

function serially<T>(task: () => Promise<T>): Promise<T> {
  const run = queue.then(task, task);
  queue = run.catch(() => undefined);
  return run;
}

/** Text of an image restricted to the MRZ alphabet (one block of lines). */
export function ocrMrzText(image: Buffer): Promise<string> {
  return serially(async () => {
    const w = await ocrWorker();
    await w.setParameters({
      tessedit_char_whitelist: MRZ_ALPHABET,
      tessedit_pageseg_mode: PSM.SINGLE_BLOCK,
      preserve_interword_spaces: '0',
      user_defined_dpi: '300',
    });
    return (await w.recognize(image)).data.text;
  });
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
    const w = await ocrWorker();
    await w.setParameters({
      tessedit_char_whitelist: '',
      tessedit_pageseg_mode: PSM.SPARSE_TEXT,
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

/** Ends the worker (tests and the eval script, so the process can exit). */
export async function stopOcr(): Promise<void> {
  const current = worker;
  worker = null;
  if (current) await (await current).terminate();
}
