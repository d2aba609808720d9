/**
 * Reads Human's yaw and eye openness on every frame of a folder (frames extracted at 5 fps),
 * one line per frame: `file yaw eyes faces`. Used once per source clip to find the clip's moves
 * (test/engine/liveness/README.md); run with `npx tsx test/engine/liveness/read-yaw.ts <dir>`.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { readFaces } from '../../../src/engine/face/analyse.js';
import { loadHuman } from '../../../src/engine/face/human.js';

const dir = process.argv[2];
if (!dir) throw new Error('usage: read-yaw.ts <dir of jpg frames>');
const human = await loadHuman();
for (const file of (await readdir(dir)).filter((f) => f.endsWith('.jpg')).sort()) {
  const { faces } = await readFaces(await readFile(path.join(dir, file)), human);
  const f = faces[0];
  console.log(file, f?.yaw ?? '-', f?.eyes?.toFixed(3) ?? '-', faces.length);
}
