// A video uploaded through the key API (issue 28): decoded on the server with the ffmpeg binary
// of @ffmpeg-installer/ffmpeg, bounded, and checked for continuity, natural motion and the
// passive models. Real clips (test/engine/liveness/video, from the liveness corpus) and videos
// made here with the decoder itself from a real photo: a still, and the photo slid and zoomed.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { jest } from '@jest/globals';
import {
  VIDEO_LIMITS,
  VIDEO_RULES,
  VideoDecodeError,
  decodeVideo,
  ffmpegPath,
  videoDecision,
  type VideoAnalysis,
} from '../../src/engine/face/video.js';
import { EnginePool } from '../../src/engine/pool/index.js';
import type { BootstrapResult } from '../../src/services/access/index.js';
import { withTestAccount } from '../support/account.js';
import { createVerification } from '../support/factories.js';
import type { TestServer } from '../support/test-server.js';
import { waitForVerdict } from '../support/wait.js';

jest.setTimeout(240_000);

const DIR = path.join(process.cwd(), 'test/engine/liveness');
const clip = (name: string) => readFile(path.join(DIR, 'video', `${name}.mp4`));
const photo = (name: string) => readFile(path.join(DIR, 'clips', name, 'face_camera-2.jpg'));

/** Runs the packaged ffmpeg on `inputs` (written to a temporary folder) and returns the output file. */
async function makeVideo(inputs: Buffer[], args: (files: string[], out: string) => string[]): Promise<Buffer> {
  const dir = await mkdtemp(path.join(tmpdir(), 'idv-video-test-'));
  try {
    const files = await Promise.all(
      inputs.map(async (bytes, i) => {
        const file = path.join(dir, `in${i}.jpg`);
        await sharp(bytes).jpeg().toFile(file);
        return file;
      }),
    );
    const out = path.join(dir, 'out.mp4');
    await promisify(execFile)(ffmpegPath()!, ['-hide_banner', '-loglevel', 'error', '-y', ...args(files, out)]);
    return await readFile(out);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const h264 = ['-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-r', '25'];
/** A real photo fed as video for 4 s. */
const stillVideo = (image: Buffer) =>
  makeVideo([image], ([f], out) => ['-loop', '1', '-i', f!, '-t', '4', '-vf', 'scale=320:-2', ...h264, out]);
/** The same photo slid, rotated in plane and zoomed in front of the camera for 4 s. */
const movedPhotoVideo = (image: Buffer) =>
  makeVideo([image], ([f], out) => [
    '-loop',
    '1',
    '-i',
    f!,
    '-t',
    '4',
    '-vf',
    "scale=480:-2,rotate='0.08*sin(2*t)':fillcolor=gray,crop=300:300:'60+50*sin(1.5*t)':'40+30*cos(2*t)',scale=320:320",
    ...h264,
    out,
  ]);
/** Two people's photos one after the other (2 s each), each slid a little. */
const swapVideo = (a: Buffer, b: Buffer) =>
  makeVideo([a, b], ([fa, fb], out) => [
    '-loop',
    '1',
    '-t',
    '2',
    '-i',
    fa!,
    '-loop',
    '1',
    '-t',
    '2',
    '-i',
    fb!,
    '-filter_complex',
    "[0]scale=320:320,crop=280:280:'20+20*sin(3*t)':20[a];[1]scale=320:320,crop=280:280:'20+20*sin(3*t)':20[b];[a][b]concat=n=2:v=1[v]",
    '-map',
    '[v]',
    ...h264,
    out,
  ]);

describe('the video decoder (ffmpeg from the npm registry)', () => {
  it('is installed by the npm package and decodes a real clip to bounded JPEG frames', async () => {
    expect(ffmpegPath()).toMatch(/ffmpeg$/);
    const frames = await decodeVideo(await clip('d9'));
    // 2 frames a second over the first 8 s.
    expect(frames.length).toBe(VIDEO_LIMITS.maxFrames);
    for (const frame of frames.slice(0, 3)) {
      const meta = await sharp(frame).metadata();
      expect(meta.format).toBe('jpeg');
      expect(Math.max(meta.width!, meta.height!)).toBeLessThanOrEqual(VIDEO_LIMITS.maxSide);
    }
    expect((await decodeVideo(await clip('d9'), { maxFrames: 3 })).length).toBe(3);
  });

  it('refuses bytes that are no video, an upload over the size bound, and stops a decode over its time limit', async () => {
    const garbage = Buffer.from('not a video at all, just some text pretending to be an mp4'.repeat(20));
    await expect(decodeVideo(garbage)).rejects.toMatchObject({ reason: 'unreadable' });
    await expect(decodeVideo(await clip('d9'), { maxBytes: 1000 })).rejects.toMatchObject({ reason: 'too_large' });
    const slow = decodeVideo(await clip('d3'), { timeoutMs: 1 });
    await expect(slow).rejects.toBeInstanceOf(VideoDecodeError);
    await expect(slow).rejects.toMatchObject({ reason: 'timeout' });
  });
});

describe('liveness on an API video, through the worker pool', () => {
  let pool: EnginePool;
  beforeAll(() => {
    pool = new EnginePool({ concurrency: 1, timeoutMs: 180_000 });
  });
  afterAll(() => pool.close());

  const decide = (a: VideoAnalysis) => videoDecision(a, {});

  it("a real person's clip shows one continuous face with natural motion and is not rejected", async () => {
    for (const name of ['d9', 'd3']) {
      const a = await pool.run('face.video', { video: await clip(name) });
      expect(a).toMatchObject({ unreadable: null, frames: VIDEO_LIMITS.maxFrames, maxFaces: 1 });
      expect(a.sameFace!).toBeGreaterThanOrEqual(VIDEO_RULES.sameFace);
      expect(a.pictureChange).toBeGreaterThan(0.6);
      const decided = decide(a);
      expect(decided.reasonCodes).not.toContain('VIDEO_STILL');
      expect(decided.reasonCodes).not.toContain('VIDEO_NO_NATURAL_MOTION');
      expect(decided.verdict).not.toBe('reject');
    }
  });

  it('a real photo fed as video is a still and rejected; the photo slid and zoomed has no natural motion', async () => {
    const image = await photo('d9');
    const still = await pool.run('face.video', { video: await stillVideo(image) });
    expect(still.pictureChange).toBeLessThan(0.6);
    expect(decide(still)).toMatchObject({ verdict: 'reject', reasonCodes: ['LIVENESS_FAILED', 'VIDEO_STILL'] });

    const moved = await pool.run('face.video', { video: await movedPhotoVideo(image) });
    expect(moved.maxFaces).toBe(1);
    expect(moved.pictureChange).toBeGreaterThan(0.6);
    expect(moved.boxMove!).toBeGreaterThan(0.05);
    const decided = decide(moved);
    expect(decided.verdict).not.toBe('approve');
    expect(decided.reasonCodes).toContain('VIDEO_NO_NATURAL_MOTION');
  });

  it('a video whose face changes to another person is rejected', async () => {
    const a = await pool.run('face.video', { video: await swapVideo(await photo('d9'), await photo('s18')) });
    expect(a.sameFace!).toBeLessThan(VIDEO_RULES.sameFace);
    expect(decide(a)).toMatchObject({ verdict: 'reject', reasonCodes: ['LIVENESS_FAILED', 'VIDEO_FACE_CHANGED'] });
  });

  it('an undecodable upload rejects as unreadable; no decoder or a decode over its bounds goes to review', () => {
    const none = (unreadable: VideoAnalysis['unreadable']): VideoAnalysis => ({
      unreadable,
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
    expect(decide(none('unreadable'))).toMatchObject({
      verdict: 'reject',
      reasonCodes: ['IMAGE_UNREADABLE', 'VIDEO_UNREADABLE'],
    });
    expect(decide(none('unavailable'))).toMatchObject({
      verdict: 'review',
      reasonCodes: ['VIDEO_ANALYSIS_UNAVAILABLE'],
    });
    expect(decide(none('timeout')).verdict).toBe('review');
  });
});

describe('a live key-API session with a video and no selfie', () => {
  let server: TestServer;
  let account: BootstrapResult;
  let live: string;
  withTestAccount(
    (t) => {
      ({ server, account, live } = t);
    },
    { env: { RATE_LIMIT_PER_MINUTE: '100000' } },
  );

  async function videoSession(video: Buffer): Promise<any> {
    const v = await createVerification(server, account, 'live', { checks: [{ type: 'liveness' }] });
    const created = await server.request(`/v1/verifications/${v.id}/uploads`, {
      token: live,
      body: { kind: 'video', content_type: 'video/mp4' },
    });
    expect(created.status).toBe(201);
    const put = await fetch(created.body.upload_url, {
      method: 'PUT',
      body: new Uint8Array(video),
      headers: { 'content-type': 'video/mp4', connection: 'close' },
    });
    expect(put.status).toBe(200);
    const done = await server.request(`/v1/verifications/${v.id}/uploads/${created.body.upload_id}/complete`, {
      method: 'POST',
      token: live,
    });
    expect(done.status).toBe(200);
    return waitForVerdict(server, v.id, live, 180_000);
  }

  it('is decoded on the server: a still photo fed as video is rejected as VIDEO_STILL, a real clip is not', async () => {
    const still = await videoSession(await stillVideo(await photo('d3')));
    const stillCheck = still.checks.find((c: { type: string }) => c.type === 'liveness');
    expect(stillCheck).toMatchObject({ status: 'completed', verdict: 'reject' });
    expect(stillCheck.reason_codes).toEqual(['LIVENESS_FAILED', 'VIDEO_STILL']);
    expect(still.status).toBe('rejected');

    const real = await videoSession(await clip('d9'));
    const realCheck = real.checks.find((c: { type: string }) => c.type === 'liveness');
    expect(realCheck.status).toBe('completed');
    expect(realCheck.reason_codes).not.toContain('VIDEO_ANALYSIS_UNAVAILABLE');
    expect(realCheck.verdict).not.toBe('reject');
  });
});
