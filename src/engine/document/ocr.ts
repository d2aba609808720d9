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
  worker ??= createWorker('eng', OEM.LSTM_ONLY, { langPath: LANG_PATH, gzip: true, cacheMethod: 'none' }).catch((error) => {
    worker = null;
    throw error;
  });
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
    await w.setParameters({ tessedit_char_whitelist: MRZ_ALPHABET, tessedit_pageseg_mode: PSM.SINGLE_BLOCK, preserve_interword_spaces: '0' });
    return (await w.recognize(image)).data.text;
  });
}

/** Free text of an image (the printed, labelled fields of a document). */
export function ocrText(image: Buffer): Promise<string> {
  return serially(async () => {
    const w = await ocrWorker();
    await w.setParameters({ tessedit_char_whitelist: '', tessedit_pageseg_mode: PSM.SPARSE_TEXT, preserve_interword_spaces: '0' });
    return (await w.recognize(image)).data.text;
  });
}

/** Ends the worker (tests and the eval script, so the process can exit). */
export async function stopOcr(): Promise<void> {
  const current = worker;
  worker = null;
  if (current) await (await current).terminate();
}
