import { analyseFaceMatch, analyseLiveness, readFaces, similarityOf } from '../face/analyse.js';

/**
 * Every analysis the worker pool runs, by name: a function of JSON-and-bytes in, JSON out.
 * Adding one (document OCR, AML screening) is one line here. Each worker thread loads its
 * models on the first task that needs them and keeps them.
 */
export const TASKS = {
  'face.match': analyseFaceMatch,
  'face.liveness': analyseLiveness,
  'face.read': (input: { image: Uint8Array }) => readFaces(input.image),
  'face.similarity': (input: { a: number[]; b: number[] }) => similarityOf(input.a, input.b),
  /** Every pair of two embedding lists (rows a, columns b) in one round trip (the eval). */
  'face.similarities': async (input: { a: number[][]; b: number[][] }) => {
    const rows: number[][] = [];
    for (const a of input.a) rows.push(await Promise.all(input.b.map((b) => similarityOf(a, b))));
    return rows;
  },
} satisfies Record<string, (payload: never) => Promise<unknown>>;

export type TaskName = keyof typeof TASKS;
export type TaskPayload<N extends TaskName> = Parameters<(typeof TASKS)[N]>[0];
export type TaskResult<N extends TaskName> = Awaited<ReturnType<(typeof TASKS)[N]>>;
