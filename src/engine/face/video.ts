import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import type { CheckResult } from '../types.js';
import { readFaces, type FaceReading } from './analyse.js';
import {
  DEFAULT_SENSITIVITY,
  FACE_MATCH_THRESHOLD,
  LIVENESS_THRESHOLD,
  MAX_REVIEW_BAND,
  type FaceStep,
} from './decide.js';
import { matchScore } from './descriptor.js';
import { loadHuman } from './human.js';

/**
 * Liveness on a video uploaded through the key API (no challenge): the server decodes it with
 * the ffmpeg binary that the npm package `@ffmpeg-installer/ffmpeg` ships (a child process,
 * bounded in input size, duration, frames, pixels and time), reads the face on each frame, and
 * checks continuity (one face, the same face throughout), motion (a real head moves and blinks
 * a little; a still image fed as video does not, nor does a flat photo slid in front of the
 * lens) and the passive antispoof/liveness models on every frame.
 */

export interface VideoLimits {
  maxBytes: number;
  maxSeconds: number;
  fps: number;
  maxFrames: number;
  maxSide: number;
  maxInputPixels: number;
  timeoutMs: number;
}

export const VIDEO_LIMITS: Readonly<VideoLimits> = {
  /** Larger uploads are not decoded. */
  maxBytes: 64 * 1024 * 1024,
  /** Only the first seconds are read. */
  maxSeconds: 8,
  /** Frames per second sampled. */
  fps: 2,
  maxFrames: 16,
  /** Frames are scaled to at most this many pixels on their longer side. */
  maxSide: 480,
  /** A frame of the input larger than this many pixels is refused by the decoder (a pixel bomb). */
  maxInputPixels: 4096 * 2304,
  /** The decoder is killed after this long. */
  timeoutMs: 20_000,
};

const require = createRequire(import.meta.url);

/** The ffmpeg binary from the npm package, or null where the package (or its platform binary) is absent. */
export function ffmpegPath(): string | null {
  try {
    return (require('@ffmpeg-installer/ffmpeg') as { path: string }).path;
  } catch {
    return null;
  }
}

/** Splits ffmpeg's MJPEG stream into its JPEG frames (0xFFD9 occurs only as a frame's end: data bytes 0xFF are stuffed). */
export function splitJpegs(stream: Buffer): Buffer[] {
  const frames: Buffer[] = [];
  let start = stream.indexOf(Buffer.from([0xff, 0xd8]));
  while (start >= 0) {
    const end = stream.indexOf(Buffer.from([0xff, 0xd9]), start + 2);
    if (end < 0) break;
    frames.push(stream.subarray(start, end + 2));
    start = stream.indexOf(Buffer.from([0xff, 0xd8]), end + 2);
  }
  return frames;
}

export class VideoDecodeError extends Error {
  constructor(
    readonly reason: 'unavailable' | 'too_large' | 'timeout' | 'unreadable',
    message: string,
  ) {
    super(message);
  }
}

/** Runs ffmpeg with `args`, collecting stdout; killed after `timeoutMs`. */
function run(binary: string, args: string[], timeoutMs: number, maxOutput: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    let size = 0;
    let stderr = '';
    let settled = false;
    const finish = (error: Error | null, value?: Buffer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error) reject(error);
      else resolve(value!);
    };
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      finish(new VideoDecodeError('timeout', `the decoder took longer than ${timeoutMs} ms`));
    }, timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxOutput) {
        child.kill('SIGKILL');
        finish(new VideoDecodeError('too_large', 'the decoded frames exceed the output bound'));
        return;
      }
      chunks.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 4000) stderr += chunk.toString();
    });
    child.on('error', (error) => finish(new VideoDecodeError('unavailable', error.message)));
    child.on('close', (code) => {
      if (code === 0) finish(null, Buffer.concat(chunks));
      else
        finish(new VideoDecodeError('unreadable', `the decoder exited with ${code}: ${stderr.trim().slice(0, 300)}`));
    });
  });
}

/**
 * The video's frames as JPEGs: `fps` a second over the first `maxSeconds`, at most `maxFrames`,
 * scaled to `maxSide`. Throws VideoDecodeError (unavailable, too_large, timeout, unreadable).
 */
export async function decodeVideo(bytes: Uint8Array, limits: Partial<typeof VIDEO_LIMITS> = {}): Promise<Buffer[]> {
  const l = { ...VIDEO_LIMITS, ...limits };
  const binary = ffmpegPath();
  if (!binary) throw new VideoDecodeError('unavailable', 'no video decoder is installed');
  if (bytes.byteLength > l.maxBytes) throw new VideoDecodeError('too_large', `the video exceeds ${l.maxBytes} bytes`);
  // A file, not a pipe: MP4 and MOV often keep their index at the end, which a pipe cannot seek to.
  const dir = await mkdtemp(path.join(tmpdir(), 'idv-video-'));
  try {
    const input = path.join(dir, 'input');
    await writeFile(input, bytes);
    const args = [
      '-hide_banner',
      '-nostdin',
      '-loglevel',
      'error',
      '-threads',
      '1',
      '-max_pixels',
      String(l.maxInputPixels),
      '-t',
      String(l.maxSeconds),
      '-i',
      input,
      '-an',
      '-sn',
      '-vf',
      `fps=${l.fps},scale='min(${l.maxSide},iw)':'min(${l.maxSide},ih)':force_original_aspect_ratio=decrease`,
      '-frames:v',
      String(l.maxFrames),
      '-f',
      'image2pipe',
      '-c:v',
      'mjpeg',
      '-q:v',
      '3',
      'pipe:1',
    ];
    const out = await run(binary, args, l.timeoutMs, l.maxFrames * l.maxSide * l.maxSide * 3);
    const frames = splitJpegs(out);
    if (frames.length === 0) throw new VideoDecodeError('unreadable', 'no frame could be decoded');
    return frames;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Mean absolute difference (0..255) of two frames at 64x64 grey: how much the picture changed. */
async function pictureChange(a: Buffer, b: Buffer): Promise<number> {
  const grey = (x: Buffer) => sharp(x).greyscale().resize(64, 64, { fit: 'fill' }).raw().toBuffer();
  const [pa, pb] = await Promise.all([grey(a), grey(b)]);
  let sum = 0;
  for (let i = 0; i < pa.length; i++) sum += Math.abs(pa[i]! - pb[i]!);
  return sum / pa.length;
}

export interface VideoAnalysis {
  /** Why the video could not be read (null: it was). */
  unreadable: VideoDecodeError['reason'] | null;
  frames: number;
  /** Frames with exactly one face. */
  oneFace: number;
  /** Most faces on one frame. */
  maxFaces: number;
  /** Lowest match score of a frame's face against the first face (continuity). */
  sameFace: number | null;
  /** Lowest antispoof / liveness confidence over the frames. */
  real: number | null;
  live: number | null;
  /** Head yaw range (degrees) and eye openness range (max - min over max) over the frames. */
  yawRange: number | null;
  eyesRange: number | null;
  /** Median picture change between consecutive frames (0..255). */
  pictureChange: number;
  /** Face box: largest move of its centre and change of its size, as a share of the first box's width. */
  boxMove: number | null;
  /** The first face's embedding (for face_match against a selfie). */
  embedding: number[] | null;
}

const round = (n: number, d = 3) => Math.round(n * 10 ** d) / 10 ** d;

/** Decodes and reads a video (in the worker pool). */
export async function analyseVideo(input: { video: Uint8Array }): Promise<VideoAnalysis> {
  const empty = (reason: VideoDecodeError['reason']): VideoAnalysis => ({
    unreadable: reason,
    frames: 0,
    oneFace: 0,
    maxFaces: 0,
    sameFace: null,
    real: null,
    live: null,
    yawRange: null,
    eyesRange: null,
    pictureChange: 0,
    boxMove: null,
    embedding: null,
  });
  let frames: Buffer[];
  try {
    frames = await decodeVideo(input.video);
  } catch (error) {
    if (error instanceof VideoDecodeError) return empty(error.reason);
    throw error;
  }
  const human = await loadHuman();
  const faces: FaceReading[][] = [];
  for (const frame of frames) faces.push((await readFaces(frame, human)).faces);
  const main = faces.map((f) => f[0]).filter((f): f is FaceReading => !!f);
  const anchor = main.find((f) => f.embedding.length > 0);
  const changes: number[] = [];
  for (let i = 1; i < frames.length; i++) changes.push(await pictureChange(frames[i - 1]!, frames[i]!));
  changes.sort((a, b) => a - b);
  const values = (pick: (f: FaceReading) => number | null | undefined) =>
    main.map(pick).filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
  const min = (v: number[]) => (v.length ? Math.min(...v) : null);
  const yaws = values((f) => f.yaw);
  const eyes = values((f) => f.eyes);
  const first = main[0];
  const boxMove = first
    ? Math.max(
        ...main.map((f) => {
          const dx = f.box[0] + f.box[2] / 2 - (first.box[0] + first.box[2] / 2);
          const dy = f.box[1] + f.box[3] / 2 - (first.box[1] + first.box[3] / 2);
          return Math.max(Math.hypot(dx, dy), Math.abs(f.box[2] - first.box[2])) / Math.max(1, first.box[2]);
        }),
      )
    : null;
  return {
    unreadable: null,
    frames: frames.length,
    oneFace: faces.filter((f) => f.length === 1).length,
    maxFaces: Math.max(0, ...faces.map((f) => f.length)),
    sameFace: anchor
      ? min(main.filter((f) => f.embedding.length).map((f) => round(matchScore(f.embedding, anchor.embedding))))
      : null,
    real: main.length === frames.length ? min(values((f) => f.real)) : null,
    live: main.length === frames.length ? min(values((f) => f.live)) : null,
    yawRange: yaws.length ? round(Math.max(...yaws) - Math.min(...yaws), 1) : null,
    eyesRange: eyes.length ? round((Math.max(...eyes) - Math.min(...eyes)) / Math.max(1e-6, Math.max(...eyes))) : null,
    pictureChange: round(changes.length ? changes[Math.floor(changes.length / 2)]! : 0, 2),
    boxMove: boxMove === null ? null : round(boxMove),
    embedding: anchor?.embedding ?? null,
  };
}

/**
 * Rules of the API video path. A still: the picture barely changes between frames (codec noise
 * only). Natural motion: the head turns a little or the eyes blink (eye openness varies); a flat
 * photo slid, turned in plane or zoomed in front of the lens moves the face box but neither.
 */
export const VIDEO_RULES = {
  minFrames: 3,
  /** Median picture change (0..255) under which the video is a still. */
  stillChange: 0.6,
  /** Yaw range (degrees) or eye openness range (share) that counts as a live head's motion. */
  naturalYaw: 4,
  naturalEyes: 0.25,
  /**
   * Every frame's face against the first: below what face_match at its defaults would still send
   * to review (threshold minus the default band, 0.57), the face changed. Set from face_match's
   * rule, not from a video corpus: real clips' frames score 0.83-0.91 among themselves, two
   * people cut together 0.51 (engine-liveness-video.test.ts).
   */
  sameFace: FACE_MATCH_THRESHOLD - MAX_REVIEW_BAND * DEFAULT_SENSITIVITY,
  /**
   * Below what face_match approves as one person (its threshold) and above `sameFace`, the face
   * may have changed: review. Under face_match's alignment two different people's frames of the
   * liveness corpus scored 0.57 or more in 656 of 1,536 tuning comparisons (docs/checks-face.md).
   */
  sameFaceReview: FACE_MATCH_THRESHOLD,
} as const;

const completed = (verdict: CheckResult['verdict'], score: number, reasonCodes: string[]): CheckResult => ({
  status: 'completed',
  verdict,
  score,
  reasonCodes,
  providerTier: 'standard',
});

/**
 * liveness on an API video: unreadable, faceless, several faces, a changing face or a still
 * reject; a face that may have changed (face_match's review band) goes to review, and so does no
 * natural motion (a flat photo moved in front of the lens, or a very still person); otherwise the passive models decide as for photos. It never proves that the
 * video was captured live for this session: a replayed recording of the right person passes.
 */
export function videoDecision(a: VideoAnalysis, step: FaceStep): CheckResult {
  if (a.unreadable === 'unavailable') return completed('review', 0, ['VIDEO_ANALYSIS_UNAVAILABLE']);
  if (a.unreadable === 'timeout' || a.unreadable === 'too_large')
    return completed('review', 0, ['VIDEO_ANALYSIS_UNAVAILABLE', 'VIDEO_TOO_LONG']);
  if (a.unreadable || a.frames === 0) return completed('reject', 0, ['IMAGE_UNREADABLE', 'VIDEO_UNREADABLE']);
  if (a.maxFaces > 1) return completed('reject', 0, ['LIVENESS_FAILED', 'MULTIPLE_FACES']);
  if (a.oneFace < Math.max(VIDEO_RULES.minFrames, Math.ceil(a.frames * 0.8)))
    return completed('reject', 0, ['IMAGE_UNREADABLE', 'SELFIE_FACE_NOT_FOUND']);
  if ((a.sameFace ?? 0) < VIDEO_RULES.sameFace)
    return completed('reject', 0, ['LIVENESS_FAILED', 'VIDEO_FACE_CHANGED']);
  if (a.pictureChange < VIDEO_RULES.stillChange) return completed('reject', 0, ['LIVENESS_FAILED', 'VIDEO_STILL']);
  const score = Math.min(a.real ?? 0, a.live ?? 0);
  if ((a.sameFace ?? 0) < VIDEO_RULES.sameFaceReview)
    return completed('review', score, ['LIVENESS_UNCERTAIN', 'VIDEO_FACE_CHANGED']);
  const natural = (a.yawRange ?? 0) >= VIDEO_RULES.naturalYaw || (a.eyesRange ?? 0) >= VIDEO_RULES.naturalEyes;
  if (!natural) return completed('review', score, ['LIVENESS_UNCERTAIN', 'VIDEO_NO_NATURAL_MOTION']);
  const threshold = step.threshold ?? LIVENESS_THRESHOLD;
  if (score >= threshold) return completed('approve', score, []);
  return score >= threshold - 0.4 * (step.sensitivity ?? 0.5)
    ? completed('review', score, ['LIVENESS_UNCERTAIN'])
    : completed('reject', score, ['LIVENESS_FAILED']);
}
