// Tuning aid for the zone's own glyphs (src/engine/document/glyphs.ts): on every zone of the spent
// sets read right, how unlike each 0/1/6-shaped character is to the zone's other glyphs of the same
// character and to those of its lookalike (0 and O, D, Q, U; 1 and I, L; 6 and G), as percentiles.
//
//   DOCUMENTS_EXTERNAL_DIR=<dir> node dist-eval/eval/documents/glyph-calibrate.js [--sets=...] [--per-condition=3] [--seed=33]
import { pathToFileURL } from 'node:url';
import { decodeBounded, isRefusal } from '../../src/engine/document/decode.js';
import { stopOcr } from '../../src/engine/document/index.js';
import { unlike, zoneGlyphs } from '../../src/engine/document/glyphs.js';
import { SILENT_TWIN } from '../../src/engine/document/mrz.js';
import { readZone } from '../../src/engine/document/zone.js';
import { SPENT, items } from './diagnose.js';

const TWINS: Record<string, string[]> = {
  '0': ['O', 'D', 'Q', 'U'],
  '1': ['I', 'L'],
  '2': ['Z'],
  '5': ['S'],
  '6': ['G'],
  '7': ['T'],
  '8': ['B'],
};
for (const [d, ls] of Object.entries(TWINS)) for (const l of ls) TWINS[l] = [...(TWINS[l] ?? []), d];

const DIGITS = ['0', '1', '2', '5', '6', '7', '8'];
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(args: string[]) {
  const opt = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
  const sets = (opt('sets') ?? SPENT.join(',')).split(',');
  const now = new Date();
  const digits: { dist: number; noise: number; set: string; id: string; c: string }[] = [];
  const letters: typeof digits = [];
  let zones = 0;
  let cut = 0;
  for (const item of items(sets, Number(opt('per-condition') ?? 3), Number(opt('seed') ?? 33))) {
    const grey = await decodeBounded(await item.bytes());
    if (isRefusal(grey)) continue;
    const zone = await readZone(grey, now);
    if (!zone.mrz?.valid || !zone.crop || !zone.band || zone.mrz.fields.document_number !== item.truth.document_number)
      continue;
    zones++;
    const glyphs = await zoneGlyphs(zone.crop, zone.band.charHeight, zone.mrz.lines);
    if (!glyphs) continue;
    cut++;
    const all = zone.mrz.lines.flatMap((l, i) => [...l].map((c, k) => ({ c, g: glyphs[i][k] })));
    // For a glyph and a digit: its distance to the nearest other glyph of that digit, and that digit's own noise (the
    // median distance of its other glyphs to their nearest), leaving the glyph out of both.
    const against = (i: number, d: string) => {
      const ds = all.map((o, j) => ({ ...o, j })).filter((o) => o.j !== i && o.g && o.c === d);
      if (ds.length < 2) return null;
      const dist = Math.min(...ds.map((o) => unlike(all[i].g!, o.g!)));
      const noise = median(ds.map((o) => Math.min(...ds.filter((p) => p.j !== o.j).map((p) => unlike(o.g!, p.g!)))));
      return { dist, noise, set: item.set, id: `${item.id} @${i}`, c: all[i].c };
    };
    for (const [i, { c, g }] of all.entries()) {
      // Silent pairs (no check digit sees the swap), each way: how near a glyph read right stands to its twin's glyphs,
      // and to its own (what a glyph misread as its twin would show).
      if (g && SILENT_TWIN[c] && args.includes('--silent')) {
        const own = against(i, c);
        const twin = against(i, SILENT_TWIN[c]);
        if (own && twin)
          console.log(
            `SIL ${c} own ${own.dist.toFixed(4)} ${own.noise.toFixed(4)} twin ${twin.dist.toFixed(4)} ${twin.noise.toFixed(4)} ${item.set} ${item.id}@${i}`,
          );
      }
      if (!g || !TWINS[c]) continue;
      if (DIGITS.includes(c)) {
        const a = against(i, c);
        if (a) digits.push(a);
      } else
        for (const d of TWINS[c]) {
          const a = against(i, d);
          if (a) letters.push(a);
        }
    }
  }
  console.log(`zones read right ${zones}, cut into glyphs ${cut}`);
  if (args.includes('--dump'))
    for (const [kind, xs] of [
      ['digit', digits],
      ['letter', letters],
    ] as const)
      for (const x of xs)
        console.log(
          `REC ${kind} ${x.c} ${x.dist.toFixed(4)} ${x.noise.toFixed(4)} ${x.set} ${x.id.replace(/ /g, '_')}`,
        );
  for (const a of [0.08, 0.1, 0.12, 0.14])
    for (const b of [2, 2.5, 3, 4]) {
      const pass = (x: { dist: number; noise: number }) => x.dist >= a && x.dist >= b * x.noise;
      console.log(
        `dist >= ${a}, >= ${b} x noise: digits passing (false) ${digits.filter(pass).length}/${digits.length}, letters passing ${letters.filter(pass).length}/${letters.length}`,
      );
    }
  for (const x of digits.filter((d) => d.dist >= 0.08 && d.dist >= 2 * d.noise))
    console.log(`digit ${x.c} ${x.set} ${x.id}: ${x.dist.toFixed(3)} noise ${x.noise.toFixed(3)}`);
  for (const x of letters.filter((d) => !(d.dist >= 0.12 && d.dist >= 3 * d.noise)))
    console.log(`letter ${x.c} ${x.set} ${x.id}: ${x.dist.toFixed(3)} noise ${x.noise.toFixed(3)}`);
  await stopOcr();
}

if (import.meta.url === pathToFileURL(process.argv[1]).href)
  main(process.argv.slice(2)).catch((e) => {
    console.error(e);
    process.exit(1);
  });
