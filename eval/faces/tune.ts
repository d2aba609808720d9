import '../../src/warnings.js';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { decode, pixelTensor, readFaces } from '../../src/engine/face/analyse.js';
import {
  alignedChip,
  chipDescriptors,
  cosine,
  faceLandmarks,
  unitMean,
  type Tensor3D,
} from '../../src/engine/face/descriptor.js';
import { loadHuman } from '../../src/engine/face/human.js';
import { sharpen, stretch } from './chip-variants.js';
import { photographedDocument, realImages } from './real.js';

/**
 * Tuning tool (tuning people only; never the held-out sets): reads every tuning photo and its
 * photographed document once, computes the descriptor under several chip variants, and prints
 * per variant the photo-vs-photo and document-vs-photo separation (AUC, TAR at 1% and 0.1%
 * FAR, cosine at those points). `node dist-eval/eval/faces/tune.js [--variants=a,b] [--cache=file]`.
 */
type Human = Awaited<ReturnType<typeof loadHuman>>;
type Variant = (human: Human, image: Tensor3D, points: [number, number][]) => Tensor3D[];

const grey = (human: Human, chip: Tensor3D, keep: number): Tensor3D =>
  human.tf.tidy(() => {
    const tf = human.tf;
    const g = tf.sum(tf.mul(chip as never, tf.tensor1d([0.299, 0.587, 0.114])), -1, true);
    return tf.add(g, tf.mul(tf.sub(chip as never, g), keep)) as unknown as Tensor3D;
  });

const mirror = (human: Human, chips: Tensor3D[]) =>
  chips.flatMap((c) => [c, human.tf.reverse(c as never, 1) as unknown as Tensor3D]);

/** A similarity jitter of the landmarks around their centre (scale, turn in degrees). */
const jitter = (points: [number, number][], scale: number, degrees: number): [number, number][] => {
  const cx = points.reduce((a, p) => a + p[0], 0) / points.length;
  const cy = points.reduce((a, p) => a + p[1], 0) / points.length;
  const [c, s] = [Math.cos((degrees * Math.PI) / 180) * scale, Math.sin((degrees * Math.PI) / 180) * scale];
  return points.map(([x, y]) => [cx + c * (x - cx) - s * (y - cy), cy + s * (x - cx) + c * (y - cy)]);
};

const one = (human: Human, image: Tensor3D, points: [number, number][]) => {
  const chip = alignedChip(human, image, points);
  return chip ? [chip] : [];
};

const VARIANTS: Record<string, Variant> = {
  base: (h, i, p) => mirror(h, one(h, i, p)),
  grey: (h, i, p) =>
    mirror(
      h,
      one(h, i, p).map((c) => grey(h, c, 0)),
    ),
  desat50: (h, i, p) =>
    mirror(
      h,
      one(h, i, p).map((c) => grey(h, c, 0.5)),
    ),
  sharpen: (h, i, p) =>
    mirror(
      h,
      one(h, i, p).map((c) => sharpen(h, c, 0.6)),
    ),
  stretch: (h, i, p) =>
    mirror(
      h,
      one(h, i, p).map((c) => stretch(h, c)),
    ),
  scale2: (h, i, p) => mirror(h, [...one(h, i, p), ...one(h, i, jitter(p, 0.97, 0)), ...one(h, i, jitter(p, 1.03, 0))]),
  stretchScale2: (h, i, p) =>
    mirror(
      h,
      [...one(h, i, p), ...one(h, i, jitter(p, 0.97, 0)), ...one(h, i, jitter(p, 1.03, 0))].map((c) => stretch(h, c)),
    ),
  turn2: (h, i, p) => mirror(h, [...one(h, i, p), ...one(h, i, jitter(p, 1, -3)), ...one(h, i, jitter(p, 1, 3))]),
};

interface Reading {
  person: string;
  file: string;
  photo: Record<string, number[] | null>;
  doc: Record<string, number[] | null>;
}

async function describe(human: Human, bytes: Buffer, variants: string[]): Promise<Record<string, number[] | null>> {
  const pixels = await decode(bytes);
  const out: Record<string, number[] | null> = Object.fromEntries(variants.map((v) => [v, null]));
  if (!pixels) return out;
  const tf = human.tf;
  const tensor = pixelTensor(human, pixels) as unknown as Tensor3D;
  try {
    const result = await human.detect(tensor as never);
    const face = result.face.sort((a, b) => b.box[2] * b.box[3] - a.box[2] * a.box[3])[0];
    if (!face) return out;
    const points = await faceLandmarks(human, tensor, face.box);
    if (!points) return out;
    let second: [number, number][] | null = null;
    if (variants.some((v) => v.startsWith('lm2'))) {
      const xs = points.map((q) => q[0]);
      const ys = points.map((q) => q[1]);
      const [x0, x1, y0, y1] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
      const side = Math.max(x1 - x0, y1 - y0) / 0.85;
      const [cx, cy] = [(x0 + x1) / 2, (y0 + y1) / 2];
      second = await faceLandmarks(human, tensor, [cx - side / 2, cy - side / 2, side, side]);
    }
    for (const v of variants) {
      const lm2 = v.startsWith('lm2');
      if (lm2 && !second) continue;
      const name = lm2 ? v.slice(3) || 'base' : v;
      const chips = VARIANTS[name]!(human, tensor, lm2 ? second! : points);
      if (!chips.length) continue;
      try {
        out[v] = unitMean(await chipDescriptors(chips));
      } finally {
        tf.dispose(chips as never);
      }
    }
    return out;
  } finally {
    tf.dispose(tensor as never);
  }
}

function metrics(pairs: { same: boolean; score: number }[]) {
  const gen = pairs.filter((p) => p.same).map((p) => p.score);
  const imp = pairs
    .filter((p) => !p.same)
    .map((p) => p.score)
    .sort((a, b) => b - a);
  let auc = 0;
  for (const g of gen) auc += imp.filter((s) => s < g).length / imp.length;
  const at = (far: number) => imp[Math.floor(imp.length * far)] ?? 0;
  const tar = (t: number) => gen.filter((g) => g > t).length / gen.length;
  return {
    n: `${gen.length}/${imp.length}`,
    auc: (auc / gen.length).toFixed(4),
    tar1: (100 * tar(at(0.01))).toFixed(1),
    tar01: (100 * tar(at(0.001))).toFixed(1),
    cos1: at(0.01).toFixed(4),
    cos01: at(0.001).toFixed(4),
    top5: imp
      .slice(0, 5)
      .map((s) => s.toFixed(3))
      .join(' '),
  };
}

const args = process.argv.slice(2);
const variants = (args.find((a) => a.startsWith('--variants='))?.slice(11) ?? Object.keys(VARIANTS).join(',')).split(
  ',',
);
const cache = args.find((a) => a.startsWith('--cache='))?.slice(8);
let readings: Reading[];
if (cache && args.includes('--from-cache')) readings = JSON.parse(await readFile(cache, 'utf8')) as Reading[];
else {
  const human = await loadHuman();
  readings = [];
  const images = await realImages('tuning');
  for (const [k, image] of images.entries()) {
    const bytes = await readFile(path.join(image.dir, image.file));
    const first = await readFaces(bytes, human);
    const face = first.faces[0];
    const doc = face ? await photographedDocument(bytes, face) : null;
    readings.push({
      person: image.person,
      file: image.file,
      photo: await describe(human, bytes, variants),
      doc: doc ? await describe(human, doc, variants) : {},
    });
    process.stderr.write(`${k + 1}/${images.length}\r`);
  }
  if (cache) await writeFile(cache, JSON.stringify(readings));
}
const subsets: Record<string, (r: Reading) => boolean> = {
  all: () => true,
  first: (r) => !r.person.startsWith('lfw-'),
  lfw: (r) => r.person.startsWith('lfw-'),
};
for (const [name, keep] of Object.entries(subsets)) {
  const rs = readings.filter(keep);
  for (const v of variants) {
    const photo = [];
    const doc = [];
    for (let i = 0; i < rs.length; i++)
      for (let j = 0; j < rs.length; j++) {
        if (i === j) continue;
        const same = rs[i]!.person === rs[j]!.person;
        const [a, b, d] = [rs[i]!.photo[v], rs[j]!.photo[v], rs[i]!.doc[v]];
        if (i < j) photo.push({ same, score: a && b ? cosine(a, b) : -1 });
        doc.push({ same, score: d && b ? cosine(d, b) : -1 });
      }
    console.log(JSON.stringify({ subset: name, variant: v, photo: metrics(photo), doc: metrics(doc) }));
  }
}
