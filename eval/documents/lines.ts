// Tuning on Doubango's MRZ line images (DoubangoTelecom/tesseractMRZ dataset/, .tif + .gt.txt):
// a fixed sample of lines, minus every line within NEAR edits of a held-out zone line, read by
// the zone reader's OCR at several character heights. These lines are the model's own training
// data, so the figures say how the model wants its input scaled, not how accurate it is.
//
//   node dist-eval/eval/documents/lines.js --git-dir=<tesseractMRZ .git> [--sample=200]
import { execFileSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import sharp from 'sharp';
import { ocrMrzText, stopOcr } from '../../src/engine/document/ocr.js';
import { matching, readDataset, zoneLines } from './overlap.js';

/** Character heights the line is scaled to (a line image's ink is about 0.6 of its height); 0: as stored. */
const HEIGHTS = [0, 20, 30, 40];

async function main() {
  const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
  const gitDir = arg('git-dir') ?? process.env.TESSERACT_MRZ_GIT;
  if (!gitDir) throw new Error('give --git-dir=<tesseractMRZ .git>');
  const sample = Number(arg('sample') ?? 200);
  const dataset = readDataset({ gitDir });
  const heldout = [...zoneLines('heldout').values()].flat();
  const excluded = new Set(matching(dataset, heldout).near.map((d) => d.file));
  // Every k-th line of the real (not font-generated) ones, in name order: the same sample every run.
  const real = dataset
    .filter((d) => !d.file.startsWith('font_generate') && !excluded.has(d.file))
    .sort((a, b) => (a.file < b.file ? -1 : 1));
  const step = Math.max(1, Math.floor(real.length / sample));
  const chosen = real.filter((_, i) => i % step === 0).slice(0, sample);
  const right = new Map<number, number>();
  const ms = new Map<number, number>();
  for (const line of chosen) {
    const tif = execFileSync(
      'git',
      ['--git-dir', gitDir, 'show', `HEAD:dataset/${line.file.replace(/\.gt\.txt$/, '.tif')}`],
      {
        maxBuffer: 64 * 1024 * 1024,
      },
    );
    const { height = 60, width = 1000 } = await sharp(tif).metadata();
    for (const h of HEIGHTS) {
      const factor = h === 0 ? 1 : h / (height * 0.6);
      const image = await sharp(tif)
        .greyscale()
        .resize({ width: Math.max(1, Math.round(width * factor)), kernel: 'cubic' })
        .extend({ top: 12, bottom: 12, left: 12, right: 12, background: '#ffffff' })
        .png()
        .toBuffer();
      const started = Date.now();
      const text = (await ocrMrzText(image)).replace(/\s+/g, '');
      ms.set(h, (ms.get(h) ?? 0) + Date.now() - started);
      if (text === line.text) right.set(h, (right.get(h) ?? 0) + 1);
    }
  }
  console.log(
    `dataset ${dataset.length} lines; ${excluded.size} excluded (near a held-out zone line); sample ${chosen.length} real lines`,
  );
  for (const h of HEIGHTS)
    console.log(
      `char height ${h === 0 ? 'as stored' : `${h} px`}: ${right.get(h) ?? 0}/${chosen.length} lines exact, ${Math.round((ms.get(h) ?? 0) / chosen.length)} ms/line`,
    );
  await stopOcr();
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
