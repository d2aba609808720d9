/**
 * The index of the face networks: random-hyperplane LSH over face descriptors. Each stored face
 * carries BANDS bucket keys (one per band of BITS hyperplane signs) in an int[] column with a
 * GIN index; a search reads only the rows sharing a bucket with the probe and compares those
 * exactly. Descriptors are centred first (their mean over the real photos' tuning set), since
 * every face descriptor points roughly the same way and uncentred signs would put everyone in
 * the same buckets. Hyperplanes come from a fixed seed: changing BANDS, BITS or the seed means
 * re-bucketing every stored face (a migration).
 */
export const FACE_LSH = { bands: 16, bits: 10, seed: 0x5eed_f00d } as const;

/** Mean face descriptor of the tuning set (face-api 128 values, unit length before averaging). */
export const CENTER: readonly number[] = [
  -0.0525, 0.0519, 0.0492, -0.0274, -0.0822, -0.0049, -0.0104, -0.0522, 0.0974, -0.0519, 0.1143, -0.0291, -0.182,
  0.0059, -0.0159, 0.0868, -0.102, -0.0821, -0.077, -0.0548, 0.0262, 0.0231, -0.0001, 0.0381, -0.085, -0.2012, -0.0345,
  -0.0449, 0.0085, -0.0718, -0.0031, 0.0388, -0.1204, -0.0229, 0.009, 0.0611, -0.0324, -0.065, 0.1137, 0.0191, -0.1163,
  -0.0001, 0.0361, 0.1787, 0.1331, 0.0248, 0.0192, -0.0492, 0.0758, -0.2091, 0.0334, 0.1097, 0.0476, 0.0524, 0.0601,
  -0.1277, 0.0145, 0.0729, -0.1173, 0.055, 0.0464, -0.0454, -0.007, -0.0601, 0.1574, 0.0689, -0.0799, -0.0831, 0.1118,
  -0.1072, -0.0524, 0.0463, -0.0819, -0.112, -0.195, 0.0221, 0.2729, 0.0957, -0.1129, 0.0102, -0.0611, -0.006, 0.029,
  0.057, -0.027, -0.016, -0.0606, 0.0266, 0.1476, -0.0159, -0.0192, 0.1549, 0.0145, -0.0186, 0.0111, 0.0237, -0.0772,
  -0.0133, -0.0926, -0.0114, 0.0059, -0.0562, -0.001, 0.0744, -0.1297, 0.1009, -0.0152, -0.0281, -0.0202, -0.0224,
  -0.0818, 0.0042, 0.1193, -0.1886, 0.1312, 0.1226, 0.0355, 0.0842, 0.0254, 0.0474, 0.0077, -0.0123, -0.0959, -0.0542,
  0.0192, -0.0262, 0.0044, 0.0336,
];

/** Deterministic Gaussian numbers (mulberry32 + Box-Muller) for the hyperplanes. */
function gaussians(seed: number, count: number): Float64Array {
  let state = seed >>> 0;
  const uniform = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (((t ^ (t >>> 14)) >>> 0) + 1) / 4294967297;
  };
  const out = new Float64Array(count);
  for (let i = 0; i < count; i += 2) {
    const r = Math.sqrt(-2 * Math.log(uniform()));
    const a = 2 * Math.PI * uniform();
    out[i] = r * Math.cos(a);
    if (i + 1 < count) out[i + 1] = r * Math.sin(a);
  }
  return out;
}

let planes: Float64Array | null = null;

/** Values in a face descriptor (face-api's 128); the search compares only descriptors of this length. */
export const FACE_DESCRIPTOR_LENGTH = CENTER.length;

/** The bucket keys of a descriptor (band * 2^BITS + its sign pattern); empty for a descriptor of another length. */
export function faceBuckets(embedding: readonly number[]): number[] {
  const dims = CENTER.length;
  if (embedding.length !== dims) return [];
  planes ??= gaussians(FACE_LSH.seed, FACE_LSH.bands * FACE_LSH.bits * dims);
  const centred = embedding.map((x, i) => x - CENTER[i]!);
  const keys: number[] = [];
  for (let band = 0; band < FACE_LSH.bands; band++) {
    let bits = 0;
    for (let b = 0; b < FACE_LSH.bits; b++) {
      const offset = (band * FACE_LSH.bits + b) * dims;
      let dot = 0;
      for (let i = 0; i < dims; i++) dot += centred[i]! * planes[offset + i]!;
      if (dot >= 0) bits |= 1 << b;
    }
    keys.push(band * (1 << FACE_LSH.bits) + bits);
  }
  return keys;
}
