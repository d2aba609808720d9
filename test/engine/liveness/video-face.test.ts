// liveness on an API video (issue 28): a face that changes into face_match's review band is not
// one person throughout. Two real people of the liveness corpus's tuning clips cut together score
// between the reject rule (0.57) and face_match's threshold; before, such a video went on to the
// passive models as if one person had recorded it.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { jest } from '@jest/globals';
import { FACE_MATCH_THRESHOLD } from '../../../src/engine/face/decide.js';
import { loadClips, splitClips } from '../../../src/engine/face/liveness-pad.js';
import { ffmpegPath, videoDecision, VIDEO_RULES, type VideoAnalysis } from '../../../src/engine/face/video.js';
import { EnginePool } from '../../../src/engine/pool/index.js';

jest.setTimeout(240_000);

/** Each clip's three frontal frames, 0.7 s each, one person after the other: a 4.2 s H.264 video. */
async function cutTogether(frames: Buffer[]): Promise<Buffer> {
  const dir = await mkdtemp(path.join(tmpdir(), 'idv-video-face-'));
  try {
    const list = frames.map((_, i) => `file 'f${i}.jpg'\nduration 0.7`).join('\n');
    await Promise.all(frames.map((bytes, i) => writeFile(path.join(dir, `f${i}.jpg`), bytes)));
    await writeFile(path.join(dir, 'list.txt'), `${list}\nfile 'f${frames.length - 1}.jpg'\n`);
    const out = path.join(dir, 'out.mp4');
    await promisify(execFile)(ffmpegPath()!, [
      ...['-hide_banner', '-loglevel', 'error', '-y', '-f', 'concat', '-safe', '0', '-i', path.join(dir, 'list.txt')],
      ...['-vf', 'scale=320:320', '-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-r', '25', out],
    ]);
    return await readFile(out);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe('a face that may have changed in an API video', () => {
  let pool: EnginePool;
  beforeAll(() => {
    pool = new EnginePool({ concurrency: 1, timeoutMs: 180_000 });
  });
  afterAll(() => pool.close());

  it('is below face_match threshold and above the reject rule: review with VIDEO_FACE_CHANGED, not approve', () => {
    expect(VIDEO_RULES.sameFaceReview).toBe(FACE_MATCH_THRESHOLD);
    const analysis: VideoAnalysis = {
      unreadable: null,
      frames: 8,
      oneFace: 8,
      maxFaces: 1,
      sameFace: 0.65,
      real: 0.95,
      live: 0.95,
      yawRange: 9,
      eyesRange: 0.4,
      pictureChange: 6,
      boxMove: 0.02,
      embedding: null,
    };
    expect(videoDecision(analysis, {})).toMatchObject({
      verdict: 'review',
      reasonCodes: ['LIVENESS_UNCERTAIN', 'VIDEO_FACE_CHANGED'],
    });
    expect(videoDecision({ ...analysis, sameFace: 0.9 }, {})).toMatchObject({ verdict: 'approve' });
  });

  it('two real people of the tuning clips cut together score in that band and go to review', async () => {
    const clips = await loadClips();
    const { tuning } = splitClips(clips.map((c) => c.clip));
    expect(tuning).toEqual(expect.arrayContaining(['d14', 'd12']));
    const of = (name: string) => clips.find((c) => c.clip === name)!.steps.face_camera;
    const a = await pool.run('face.video', { video: await cutTogether([...of('d14'), ...of('d12')]) });
    expect(a.maxFaces).toBe(1);
    expect(a.sameFace!).toBeGreaterThanOrEqual(VIDEO_RULES.sameFace);
    expect(a.sameFace!).toBeLessThan(VIDEO_RULES.sameFaceReview);
    expect(videoDecision(a, {}).reasonCodes).toContain('VIDEO_FACE_CHANGED');
    expect(videoDecision(a, {}).verdict).not.toBe('approve');
  });
});
