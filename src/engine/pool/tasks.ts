import { analyseDocument } from '../document/index.js';
import { analyseFaceMatch, analyseLiveness, readFaces, similarityOf } from '../face/analyse.js';
import { analyseChallenge } from '../face/challenge.js';
import { analyseVideo } from '../face/video.js';
import type { FaceModels } from '../face/human.js';
import { threadPriority } from './priority.js';

/** Bytes cross the thread boundary as Uint8Array; the document readers want Buffers (no copy). */
const buffer = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/**
 * Every analysis the worker pool runs, by name: a function of JSON-and-bytes in, JSON out.
 * Adding one (document OCR, AML screening) is one line here. Each worker thread loads its
 * models on the first task that needs them and keeps them.
 */
export const TASKS = {
  /** The document check's reading (quality, MRZ OCR, PDF417): one OCR worker per pool thread. */
  'document.analyse': (input: { front: Uint8Array; back?: Uint8Array; now?: Date }) =>
    analyseDocument(
      { front: buffer(input.front), back: input.back ? buffer(input.back) : undefined },
      { now: input.now },
    ),
  'face.match': analyseFaceMatch,
  'face.liveness': analyseLiveness,
  /** Active liveness: the challenge's frames and the selfie. */
  'face.challenge': analyseChallenge,
  /** A video uploaded through the API: decoded (ffmpeg child process), faces read on its frames. */
  'face.video': analyseVideo,
  /** The faces on one image; `models: 'portrait'` for a document's portrait (face.match's document side). */
  'face.read': (input: { image: Uint8Array; models?: FaceModels }) => readFaces(input.image, undefined, input.models),
  'face.similarity': (input: { a: number[]; b: number[] }) => similarityOf(input.a, input.b),
  /** Every pair of two embedding lists (rows a, columns b) in one round trip (the eval). */
  'face.similarities': async (input: { a: number[][]; b: number[][] }) => {
    const rows: number[][] = [];
    for (const a of input.a) rows.push(await Promise.all(input.b.map((b) => similarityOf(a, b))));
    return rows;
  },
  /** The thread's niceness (tests: analyses run at a lower priority than the server's thread). */
  'pool.priority': async (_input: Record<string, never>) => threadPriority(),
} satisfies Record<string, (payload: never) => Promise<unknown>>;

export type TaskName = keyof typeof TASKS;
export type TaskPayload<N extends TaskName> = Parameters<(typeof TASKS)[N]>[0];
export type TaskResult<N extends TaskName> = Awaited<ReturnType<(typeof TASKS)[N]>>;
