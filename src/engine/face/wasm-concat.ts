import type { Human } from '@vladmandic/human';

type Tf = Human['tf'];

/** A tensor as a kernel sees it (tfjs's TensorInfo). */
interface TensorInfo {
  dataId: object;
  shape: number[];
  dtype: string;
}

/** What the wasm backend offers a kernel: an output tensor in its heap, and any tensor's values there. */
interface WasmBackend {
  makeOutput(shape: number[], dtype: string): TensorInfo;
  typedArrayFromHeap(info: TensorInfo): Float32Array | Int32Array;
}

interface ConcatArgs {
  inputs: TensorInfo[];
  backend: WasmBackend;
  attrs: { axis: number | number[] };
}

/** Widest last axis the loop below takes; wider ones copy fast enough a row at a time (the backend's own kernel). */
const NARROW = 16;

const marker = Symbol.for('idv.wasm-concat');

/**
 * tfjs's wasm Concat copies a row at a time through a fresh subarray; along the last axis of
 * narrow tensors a "row" is one value. face-api subtracts its mean colour through such a concat
 * (three one-channel planes into RGB) on every face, which made about 14 MB of small objects a
 * face and their collections (heap sampling). This kernel copies those values in one loop and
 * leaves every other concat to the backend's own. The output is the same values.
 */
export function narrowConcatKernel(tf: Tf): void {
  const original = tf.getKernel('Concat', 'wasm') as
    ({ kernelFunc: (args: ConcatArgs) => TensorInfo } & { [marker]?: true }) | undefined;
  if (!original || original[marker]) return;
  const kernelFunc = (args: ConcatArgs) => narrowConcat(args) ?? original.kernelFunc(args);
  tf.unregisterKernel('Concat', 'wasm');
  tf.registerKernel({ ...original, kernelFunc, [marker]: true } as never);
}

/** The concat along the last axis of two or more narrow, non-empty tensors of one numeric type; null for any other. */
export function narrowConcat({ inputs, backend, attrs }: ConcatArgs): TensorInfo | null {
  if (inputs.length < 2) return null;
  const rank = inputs[0]!.shape.length;
  const dtype = inputs[0]!.dtype;
  const requested = Array.isArray(attrs.axis) ? attrs.axis[0]! : attrs.axis;
  const axis = requested < 0 ? requested + rank : requested;
  if (rank === 0 || axis !== rank - 1 || (dtype !== 'float32' && dtype !== 'int32')) return null;
  const rows = inputs[0]!.shape.slice(0, axis);
  const widths: number[] = [];
  for (const input of inputs) {
    const width = input.shape[axis]!;
    if (input.dtype !== dtype || input.shape.length !== rank || width < 1 || width > NARROW) return null;
    if (input.shape.slice(0, axis).some((size, i) => size !== rows[i])) return null;
    widths.push(width);
  }
  const count = rows.reduce((a, b) => a * b, 1);
  if (count === 0) return null;
  const total = widths.reduce((a, b) => a + b, 0);
  const out = backend.makeOutput([...rows, total], dtype);
  const target = backend.typedArrayFromHeap(out);
  const sources = inputs.map((input) => backend.typedArrayFromHeap(input));
  for (let row = 0, at = 0; row < count; row++)
    for (let k = 0; k < sources.length; k++) {
      const source = sources[k]!;
      const width = widths[k]!;
      for (let i = row * width, end = i + width; i < end; i++) target[at++] = source[i]!;
    }
  return out;
}
