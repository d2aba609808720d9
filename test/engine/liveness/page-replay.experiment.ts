/**
 * A measurement tool, not part of the suite (its name is outside jest's testMatch): plays a real
 * clip through the hosted page in Chromium and prints what the page captured and the session's
 * liveness check. Chromium's fake camera plays the clip's segments in the order of the server's
 * challenge (the challenge request is answered from the test, which writes the Y4M before the page
 * opens the camera), each prompt's segment the clip's own frames at that move played back and
 * forth (a held move), paced to the prompts by holding each prompt's last upload until its segment
 * ends. The clip is not in the repository (test/engine/liveness/README.md: fetched data stays out
 * of commits). Run:
 *
 *   CLIP=<capture4.mp4> NODE_OPTIONS='--experimental-vm-modules --no-warnings' npx jest \
 *     --testMatch '<rootDir>/test/engine/liveness/page-replay.experiment.ts'
 *
 * WINDOWS (JSON, seconds of the clip per move) defaults to capture4's moves as Human reads them.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { jest } from '@jest/globals';
import type { Browser, HTTPRequest } from 'puppeteer-core';
import { readFaces } from '../../../src/engine/face/analyse.js';
import { loadHuman } from '../../../src/engine/face/human.js';
import { ffmpegPath } from '../../../src/engine/face/video.js';
import { launchBrowser } from '../../support/browser.js';
import type { BootstrapResult } from '../../../src/services/access/index.js';
import { createVerification } from '../../support/factories.js';
import { clickButton, heading, pageUrl, useHostedBrowser, walkToLivenessPrompts } from '../../support/hosted-browser.js';
import type { TestServer } from '../../support/test-server.js';
import { waitForVerdict } from '../../support/wait.js';

// Page code run by page.evaluate: typed loosely here (the project's lib has no DOM types).
declare const window: any;
declare const HTMLCanvasElement: any;

let server: TestServer;
let account: BootstrapResult;
let files: Record<string, string>;
jest.setTimeout(400_000);
useHostedBrowser((h) => ({ server, account, files } = h));

const CLIP = process.env.CLIP ?? '';
const W = 320;
const H = 240;
const FPS = 20;
const FRAME = (W * H * 3) / 2;
/** Seconds of the clip per move (capture4, from Human's readings at 10 fps): the peak of each move. */
const WINDOWS: Record<string, [number, number]> = process.env.WINDOWS ? JSON.parse(process.env.WINDOWS) : {
  face_camera: [0.2, 1.4],
  turn_left: [3.75, 4.1],
  turn_right: [2.2, 2.55],
  blink: [9.0, 10.0], // no blink in the clip: a frontal stretch
};
const SEGMENT_S = 5;
/** Frames the page takes per prompt (liveness-challenge.js): a burst for the blink, three otherwise. */
const FRAMES_PER = (move: string) => (move === 'blink' ? 16 : 3);

async function rawFrames(from: number, to: number): Promise<Buffer[]> {
  const { stdout } = await promisify(execFile)(
    ffmpegPath()!,
    [
      '-hide_banner',
      '-loglevel',
      'error',
      '-ss',
      String(from),
      '-t',
      String(to - from),
      '-i',
      CLIP,
      '-r',
      String(FPS),
      '-f',
      'rawvideo',
      '-pix_fmt',
      'yuv420p',
      '-',
    ],
    { encoding: 'buffer', maxBuffer: 1 << 28 },
  );
  const out: Buffer[] = [];
  for (let i = 0; i + FRAME <= stdout.length; i += FRAME) out.push(stdout.subarray(i, i + FRAME));
  return out;
}

/** The move's frames played forward and back until the segment is full. */
function held(frames: Buffer[], seconds: number): Buffer[] {
  const bounce = [...frames, ...[...frames].reverse()];
  const out: Buffer[] = [];
  while (out.length < seconds * FPS) out.push(bounce[out.length % bounce.length]!);
  return out;
}

function y4m(frames: Buffer[]): Buffer {
  const header = Buffer.from(`YUV4MPEG2 W${W} H${H} F${FPS}:1 Ip A1:1 C420jpeg XYSCSS=420JPEG\n`);
  const parts: Buffer[] = [header];
  for (const f of frames) parts.push(Buffer.from('FRAME\n'), f);
  return Buffer.concat(parts);
}

describe('a real clip through the hosted page (measurement)', () => {
  let camera: Browser;
  let dir: string;
  const segments: Record<string, Buffer[]> = {};
  beforeAll(async () => {
    if (!CLIP) throw new Error('CLIP=<path of the clip> is required');
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'capture4-camera-'));
    for (const [move, [a, b]] of Object.entries(WINDOWS)) segments[move] = held(await rawFrames(a, b), SEGMENT_S);
    fs.writeFileSync(path.join(dir, 'camera.y4m'), y4m(segments.face_camera!));
    // The selfie: the clip's first frame.
    await promisify(execFile)(ffmpegPath()!, [
      '-hide_banner',
      '-loglevel',
      'error',
      '-y',
      '-i',
      CLIP,
      '-frames:v',
      '1',
      path.join(dir, 'selfie.jpg'),
    ]);
    camera = await launchBrowser([`--use-file-for-fake-video-capture=${path.join(dir, 'camera.y4m')}`]);
  });
  afterAll(async () => {
    await camera?.close();
  });

  it("plays the clip's moves in the challenge's order and prints what the page captured", async () => {
    const v = await createVerification(server, account, 'live', {
      checks: [{ type: 'document' }, { type: 'face_match' }, { type: 'liveness' }],
    });
    const context = await camera.createBrowserContext();
    const page = await context.newPage();
    await page.setViewport({ width: 1280, height: 900 });
    await page.evaluateOnNewDocument(() => {
      const original = HTMLCanvasElement.prototype.toBlob;
      (window as any).__frames = [];
      HTMLCanvasElement.prototype.toBlob = function (this: any, cb: any, type?: string, q?: number) {
        (window as any).__frames.push({ at: Date.now(), url: this.toDataURL('image/jpeg', 0.9) });
        return original.call(this, cb, type, q);
      } as any;
    });
    let steps: string[] = [];
    let t0 = 0;
    let completes = 0;
    const log: string[] = [];
    await page.setRequestInterception(true);
    page.on('request', (req: HTTPRequest) => {
      void (async () => {
        const url = req.url();
        if (req.method() === 'POST' && url.endsWith('/liveness/challenge')) {
          const res = await fetch(url, { method: 'POST', headers: req.headers(), body: req.postData() ?? '{}' });
          const body = await res.text();
          steps = JSON.parse(body).steps;
          const frames = steps.flatMap((s) => segments[s]!);
          fs.writeFileSync(path.join(dir, 'camera.y4m.tmp'), y4m(frames));
          fs.renameSync(path.join(dir, 'camera.y4m.tmp'), path.join(dir, 'camera.y4m'));
          t0 = Date.now();
          log.push(`challenge ${steps.join(',')}`);
          return req.respond({ status: res.status, headers: Object.fromEntries(res.headers), body });
        }
        if (t0 && req.method() === 'POST' && /\/uploads\/[^/]+\/complete$/.test(url)) {
          completes += 1;
          const ends = steps.map((_, i) => steps.slice(0, i + 1).reduce((n, s) => n + FRAMES_PER(s), 0));
          if (ends.includes(completes)) {
            const next = ends.indexOf(completes) + 1;
            const target = t0 + next * SEGMENT_S * 1000;
            log.push(`prompt ${next - 1} done at ${Date.now() - t0} ms, next released at ${target - t0} ms`);
            await new Promise((r) => setTimeout(r, Math.max(0, target - Date.now())));
          }
        }
        return req.continue();
      })();
    });
    await page.goto(pageUrl(v.id, v.client_token!), { waitUntil: 'domcontentloaded' });
    await walkToLivenessPrompts(page, files['document.png']!, path.join(dir, 'selfie.jpg'));
    await clickButton(page, 'Start');
    await heading(page, 'Ready to submit', 120_000);
    const captured: { at: number; url: string }[] = await page.evaluate(() => (window as any).__frames);
    await clickButton(page, 'Submit');
    await heading(page, 'Thank you');
    const settled = await waitForVerdict(server, v.id, account.keys.live.secret_key, 240_000);
    const liveness = settled.checks.find((c: { type: string }) => c.type === 'liveness');
    const human = await loadHuman();
    const perStep = steps.map(FRAMES_PER);
    const frames = captured.slice(-perStep.reduce((a, b) => a + b, 0));
    const rows: string[] = [];
    let at = 0;
    for (const [s, n] of perStep.entries())
      for (let k = 0; k < n; k++, at++) {
        const f = frames[at]!;
        const bytes = Buffer.from(f.url.slice(f.url.indexOf(',') + 1), 'base64');
        fs.writeFileSync(path.join(dir, `frame-${at}.jpg`), bytes);
        const face = (await readFaces(bytes, human)).faces[0];
        rows.push(`${steps[s]} #${k} t=${f.at - t0}ms yaw=${face?.yaw} eyes=${face?.eyes} aspect=${face?.aspect}`);
      }
    console.log([...log, ...rows, JSON.stringify(liveness)].join('\n'), dir);
    expect(liveness).toBeDefined();
    await context.close();
  });
});
