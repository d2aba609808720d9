/**
 * The blink reading calibrated on real blinks (issue 28), on the corpus's **tuning** clips only
 * (splitClips; held-out clips are refused). Two passes, run with tsx:
 *
 *   read <LivePortrait git dir> <work dir>: each tuning clip out of the local mirror at the
 *     manifest's commit (sha256 checked), its frames at 20 fps with the bundled ffmpeg into
 *     <work dir>/<clip>/ (not committed), each frame read by readFaces (the reader challenge.ts
 *     uses), written to blink-calibration.json (`readings`, per frame: yaw, eyes, aspect).
 *   report: the blinks labelled by eye (`labels` in the same file: frame ranges where the eyelids
 *     are closed or nearly closed, from viewing the frames) against the readings, as the table
 *     of blink-calibration.md.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { readFaces } from '../../../src/engine/face/analyse.js';
import { loadHuman } from '../../../src/engine/face/human.js';
import { splitClips } from '../../../src/engine/face/liveness-pad.js';
import { ffmpegPath } from '../../../src/engine/face/video.js';

export const FPS = 20;
const HERE = path.join(process.cwd(), 'test/engine/liveness');
const OUT = path.join(HERE, 'blink-calibration.json');
const LABELS = path.join(HERE, 'blink-labels.json');

interface Reading {
  frame: number;
  t: number;
  faces: number;
  yaw: number | null;
  eyes: number | null;
  aspect: number | null;
  box?: [number, number, number, number] | null;
}
/** A blink labelled by eye: its first and last frame (1-based, at 20 fps) with the lids closed or nearly closed. */
interface Label {
  from: number;
  to: number;
  note?: string;
}
interface Calibration {
  fps: number;
  readings: Record<string, Reading[]>;
}
/** blink-labels.json: per clip, the blinks seen on the contact sheets (every frame viewed), and stretches left out (a squint). */
type Labels = Record<string, { blinks: Label[]; exclude?: Label[]; note?: string }>;

const manifest = JSON.parse(readFileSync(path.join(HERE, 'manifest.json'), 'utf8')) as {
  clips: { clip: string; path: string; commit: string; source_sha256: string }[];
};
const tuning = splitClips(manifest.clips.map((c) => c.clip)).tuning;

function load(): Calibration {
  try {
    return JSON.parse(readFileSync(OUT, 'utf8')) as Calibration;
  } catch {
    return { fps: FPS, readings: {} };
  }
}

async function read(gitDir: string, work: string, only?: string) {
  const ffmpeg = ffmpegPath();
  if (!ffmpeg) throw new Error('no bundled ffmpeg');
  const human = await loadHuman();
  const cal = load();
  for (const entry of manifest.clips.filter((c) => tuning.includes(c.clip) && (!only || c.clip === only))) {
    const bytes = execFileSync('git', ['--git-dir', gitDir, 'show', `${entry.commit}:${entry.path}`], {
      maxBuffer: 1 << 28,
    });
    const sha = createHash('sha256').update(bytes).digest('hex');
    if (sha !== entry.source_sha256) throw new Error(`${entry.clip}: sha256 differs from the manifest`);
    const dir = path.join(work, entry.clip);
    mkdirSync(dir, { recursive: true });
    const src = path.join(work, `${entry.clip}.mp4`);
    writeFileSync(src, bytes);
    execFileSync(ffmpeg, ['-v', 'error', '-y', '-i', src, '-vf', `fps=${FPS}`, '-q:v', '2', path.join(dir, '%04d.jpg')]);
    const readings: Reading[] = [];
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.jpg')).sort()) {
      const { faces } = await readFaces(readFileSync(path.join(dir, file)), human);
      const f = faces[0];
      const frame = Number(file.slice(0, 4));
      readings.push({
        frame,
        t: Math.round(((frame - 1) / FPS) * 100) / 100,
        faces: faces.length,
        yaw: f?.yaw ?? null,
        eyes: f?.eyes ?? null,
        aspect: f?.aspect ?? null,
        box: f?.box ?? null,
      });
    }
    cal.readings[entry.clip] = readings;
    writeFileSync(OUT, JSON.stringify(cal, null, 1) + '\n');
    console.log(entry.clip, readings.length, 'frames');
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s[(s.length - 1) >> 1]! + s[s.length >> 1]!) / 2 : NaN;
};

/** Per clip: open-eye openness (median over frames at least 3 frames from any labelled blink), each blink's minimum and ratio, its length. */
export function report(cal: Calibration, labelled: Labels): string {
  const lines = [
    '| clip | frames read | open eyes (median away from blinks) | blinks seen | each blink: frames (count at 20 fps) · least openness · least / open |',
    '|---|---|---|---|---|',
  ];
  const ratios: number[] = [];
  const lengths: number[] = [];
  const catches: { clip: string; blink: Label; open: number; readings: Reading[] }[] = [];
  let openFrames: number[] = [];
  for (const clip of tuning) {
    const r = cal.readings[clip];
    if (!r) continue;
    const { blinks, exclude = [] } = labelled[clip] ?? { blinks: [] };
    const near = (f: number) =>
      blinks.some((l) => f >= l.from - 3 && f <= l.to + 3) || exclude.some((l) => f >= l.from && f <= l.to);
    const openEyes = r.filter((x) => x.eyes !== null && !near(x.frame)).map((x) => x.eyes!);
    const open = median(openEyes);
    openFrames = openFrames.concat(openEyes.map((e) => e / open));
    const cells = blinks.map((l) => {
      const mine = r.filter((x) => x.frame >= l.from && x.frame <= l.to && x.eyes !== null);
      const least = Math.min(...mine.map((x) => x.eyes!));
      ratios.push(least / open);
      lengths.push(l.to - l.from + 1);
      catches.push({ clip, blink: l, open, readings: r });
      return `${l.from}–${l.to} (${l.to - l.from + 1}) · ${mine.length ? least.toFixed(3) : 'no face'} · ${(least / open).toFixed(2)}`;
    });
    lines.push(`| ${clip} | ${r.length} | ${open.toFixed(3)} | ${blinks.length} | ${cells.join('; ') || '–'} |`);
  }
  const q = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.floor(p * (xs.length - 1))]!;
  lines.push(
    '',
    `Blinks seen: ${ratios.length} in ${Object.keys(cal.readings).length} clips. Least / open: ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}, median ${median(ratios).toFixed(2)}; sorted: ${[...ratios].sort((a, b) => a - b).map((x) => x.toFixed(2)).join(', ')}. Length (frames at ${FPS} fps with the lids closed or nearly): ${Math.min(...lengths)}–${Math.max(...lengths)}, median ${median(lengths)}.`,
    `Open-eye frames (away from blinks and squints), openness over the clip's open median: 1st percentile ${q(openFrames, 0.01).toFixed(2)}, 5th ${q(openFrames, 0.05).toFixed(2)}, least ${Math.min(...openFrames).toFixed(2)} (${openFrames.length} frames).`,
    '',
    'A capture of frames every `gap` (at 20 fps: 1 = 50 ms, 2 = 100 ms, 8 = 400 ms) started at each possible phase: the share of (blink, phase) pairs where a captured frame within the blink ±2 frames reads at most `ratio` × the open median.',
    '',
    '| ratio | every 50 ms | every 100 ms | every 150 ms | every 400 ms (three frames, today\'s page) |',
    '|---|---|---|---|---|',
  );
  for (const ratio of [0.5, 0.6, 0.7, 0.75, 0.8]) {
    const cells = [1, 2, 3, 8].map((gap) => {
      let hit = 0;
      let all = 0;
      for (const c of catches)
        for (let phase = 0; phase < gap; phase++) {
          all += 1;
          const seen = c.readings.some(
            (x) =>
              x.frame >= c.blink.from - 2 &&
              x.frame <= c.blink.to + 2 &&
              (x.frame - c.blink.from + 2 + phase) % gap === 0 &&
              x.eyes !== null &&
              x.eyes <= ratio * c.open,
          );
          if (seen) hit += 1;
        }
      return `${((100 * hit) / all).toFixed(0)}% (${hit}/${all})`;
    });
    lines.push(`| ${ratio} | ${cells.join(' | ')} |`);
  }
  return lines.join('\n');
}

/**
 * Contact sheets for labelling by eye: per second of clip (20 frames, 5 × 4), the band of each
 * frame around the eyes (from the face box of the second's first frame), the frame number on each.
 * The labeller sees pixels only, never the readings.
 */
async function sheets(work: string, clip: string) {
  if (!tuning.includes(clip)) throw new Error(`${clip} is not a tuning clip`);
  const human = await loadHuman();
  const dir = path.join(work, clip);
  const files = readdirSync(dir).filter((f) => f.endsWith('.jpg')).sort();
  const out = path.join(work, 'sheets', clip);
  mkdirSync(out, { recursive: true });
  const W = 300;
  const stored = new Map((load().readings[clip] ?? []).map((r) => [r.frame, r.box ?? null]));
  for (let s = 0; s * 30 < files.length; s++) {
    const group = files.slice(s * 30, s * 30 + 30);
    const tiles = [];
    let H = 0;
    let last: [number, number, number, number] | null = null;
    for (const [i, file] of group.entries()) {
      // Each frame cropped around its own face box (the reader's box, never its eye reading).
      const bytes = readFileSync(path.join(dir, file));
      const meta = await sharp(bytes).metadata();
      const box: [number, number, number, number] | null = stored.get(Number(file.slice(0, 4))) ?? (await readFaces(bytes, human)).faces[0]?.box ?? last;
      last = box ?? last;
      const [x, y, w, h] = box ?? [0, 0, meta.width!, meta.height!];
      const left = Math.max(0, Math.round(x + 0.05 * w));
      const top = Math.max(0, Math.round(y + Number(process.env.CROP_TOP ?? 0.22) * h));
      const width = Math.min(meta.width! - left, Math.round(0.9 * w));
      const height = Math.min(meta.height! - top, Math.round(0.3 * h));
      H = Math.round(W / 3);
      const label = Buffer.from(
        `<svg width="${W}" height="${H}"><text x="4" y="18" font-size="18" fill="yellow" stroke="black" stroke-width="0.6">${Number(file.slice(0, 4))}</text></svg>`,
      );
      const tile = await sharp(bytes)
        .extract({ left, top, width, height })
        .resize(W, H, { fit: 'fill' })
        .composite([{ input: label }])
        .png()
        .toBuffer();
      tiles.push({ input: tile, left: (i % 5) * (W + 4), top: Math.floor(i / 5) * (H + 4) });
    }
    await sharp({ create: { width: 5 * (W + 4), height: 6 * (H + 4), channels: 3, background: '#000' } })
      .composite(tiles)
      .png()
      .toFile(path.join(out, `${String(s + 1).padStart(2, '0')}.png`));
  }
  console.log(out);
}

const [cmd, a, b, c] = process.argv.slice(2);
if (cmd === 'read') {
  if (!a || !b) throw new Error('usage: blink-calibration.ts read <LivePortrait git dir> <work dir> [clip]');
  await read(a, b, c);
} else if (cmd === 'sheets') {
  if (!a || !b) throw new Error('usage: blink-calibration.ts sheets <work dir> <clip>');
  await sheets(a, b);
} else if (cmd === 'report') console.log(report(load(), JSON.parse(readFileSync(LABELS, 'utf8')) as Labels));
else if (cmd) throw new Error('usage: blink-calibration.ts read|report');
