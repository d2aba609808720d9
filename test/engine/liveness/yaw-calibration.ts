/**
 * Calibrates Human's yaw (as challenge.ts reads it) against known true head turns: a 3-D scan of a
 * real head (Lee Perry-Smith, CC-BY 3.0, yaw-calibration.md) rendered in headless Chromium with
 * WebGL at true yaw −40°..+40° in 5° steps, three pitches, three lights and two distances, each
 * render read by `readFaces` exactly as a challenge frame is. Writes every reading and the fitted
 * mapping to yaw-calibration.json. The scan is not shipped here: it is read from a folder holding
 * `LeePerrySmith.glb` and `Map-COL.jpg` (sha256 checked), made as yaw-calibration.md says.
 *
 *   npx tsx test/engine/liveness/yaw-calibration.ts <scan dir> [--out <dir for the renders>]
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readFaces } from '../../../src/engine/face/analyse.js';
import { loadHuman } from '../../../src/engine/face/human.js';
import { launchBrowser } from '../../support/browser.js';


const here = path.dirname(fileURLToPath(import.meta.url));

/** The scan's files as the three.js examples ship them (glb: taoshunqian/threeDemo; texture: alteredq/three.js). */
export const SCAN = {
  glb: { file: 'LeePerrySmith.glb', sha256: '402b8a8ac9f03232e6d64b5962929703a069daf99d3c49ac8eb0e48bedc9c576' },
  texture: { file: 'Map-COL.jpg', sha256: 'e976d73b31407f8d0967412bf468019ed26a5d5a32cf5811aabff7e816458a65' },
} as const;

/** The product rule in true degrees (docs/checks-face.md, liveness): a 20° turn passes, within 10° is frontal. */
export const TRUE_RULE = { turn: 20, frontal: 10 } as const;

export const YAWS = Array.from({ length: 17 }, (_, i) => -40 + 5 * i);
export const PITCHES = [-10, 0, 10];
/** Key light directions (towards the light, camera space): from the front-left, front-right, above. */
export const LIGHTS: Record<string, [number, number, number]> = {
  left: [-0.6, 0.3, 0.75],
  right: [0.6, 0.3, 0.75],
  above: [0, 0.8, 0.6],
};
/**
 * Camera distance from the head's vertical axis in scan units: the scan is a bust whose head is
 * ~3.5 units wide at the nose and ~4.6 deep (~15 cm and ~20 cm), so a unit is ~4.3 cm: ~40 cm
 * (a phone at arm's length) and ~60 cm (a laptop).
 */
export const DISTANCES = { near: 9.3, far: 14 } as const;
const WIDTH = 1280;
const HEIGHT = 720;
/** Vertical field of view of a typical laptop or phone front camera. */
const FOV_Y = 45;
/** The head turns about a vertical axis through the middle of the skull (x, z); the camera aims at eye height (y). */
const PIVOT = [-0.08, 1.3, 0];

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** The mesh of a glTF binary: positions, normals, texture coordinates, indices (uncompressed, one primitive). */
function parseGlb(bytes: Buffer) {
  const jsonLength = bytes.readUInt32LE(12);
  const json = JSON.parse(bytes.subarray(20, 20 + jsonLength).toString('utf8'));
  const bin = bytes.subarray(20 + jsonLength + 8);
  const view = (accessor: number) => {
    const a = json.accessors[accessor];
    const v = json.bufferViews[a.bufferView];
    const start = (v.byteOffset ?? 0) + (a.byteOffset ?? 0);
    const size = { SCALAR: 1, VEC2: 2, VEC3: 3 }[a.type as 'SCALAR' | 'VEC2' | 'VEC3'] * a.count;
    const bytesPer = a.componentType === 5123 ? 2 : a.componentType === 5125 ? 4 : 4;
    return Buffer.from(bin.subarray(start, start + size * bytesPer)).toString('base64');
  };
  const primitive = json.meshes[0].primitives[0];
  return {
    position: view(primitive.attributes.POSITION),
    normal: view(primitive.attributes.NORMAL),
    uv: view(primitive.attributes.TEXCOORD_0),
    index: view(primitive.indices),
    indexType: json.accessors[primitive.indices].componentType as number,
    count: json.accessors[primitive.indices].count as number,
  };
}

/** Sets up WebGL in the page with the mesh and texture; `window.render(yaw, pitch, light, distance)` draws one view. */
async function setupPage(page: any, mesh: ReturnType<typeof parseGlb>, texture: string) {
  await page.setViewport({ width: WIDTH, height: HEIGHT });
  await page.setContent(
    `<html><body style="margin:0;background:#000"><canvas id="c" width="${WIDTH}" height="${HEIGHT}"></canvas></body></html>`,
  );
  // Page code as a string: tsx would wrap functions passed to page.evaluate in helpers the page lacks.
  await page.evaluate(`(async (m, tex, opts) => {
      const canvas = document.getElementById('c');
      const gl = canvas.getContext('webgl', { preserveDrawingBuffer: true, antialias: true });
      if (!gl) throw new Error('no WebGL');
      const decode = (b64) => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0)).buffer;
      const vs = \`attribute vec3 p; attribute vec3 n; attribute vec2 t;
        uniform mat4 mv; uniform mat4 proj; varying vec3 vn; varying vec2 vt;
        void main() { vn = mat3(mv) * n; vt = vec2(t.x, 1.0 - t.y); gl_Position = proj * mv * vec4(p, 1.0); }\`;
      const fs = \`precision mediump float; uniform sampler2D map; uniform vec3 light;
        varying vec3 vn; varying vec2 vt;
        void main() {
          vec3 albedo = pow(texture2D(map, vt).rgb, vec3(2.2));
          float d = max(dot(normalize(vn), normalize(light)), 0.0);
          vec3 c = albedo * (0.25 + 0.9 * d);
          gl_FragColor = vec4(pow(c, vec3(1.0 / 2.2)), 1.0);
        }\`;
      const shader = (type, src) => {
        const s = gl.createShader(type);
        gl.shaderSource(s, src);
        gl.compileShader(s);
        if (!gl.getShaderParameter(s, gl.COMPILE_STATUS)) throw new Error(gl.getShaderInfoLog(s));
        return s;
      };
      const prog = gl.createProgram();
      gl.attachShader(prog, shader(gl.VERTEX_SHADER, vs));
      gl.attachShader(prog, shader(gl.FRAGMENT_SHADER, fs));
      gl.linkProgram(prog);
      gl.useProgram(prog);
      const attrib = (name, data, size) => {
        const buf = gl.createBuffer();
        gl.bindBuffer(gl.ARRAY_BUFFER, buf);
        gl.bufferData(gl.ARRAY_BUFFER, new Float32Array(data), gl.STATIC_DRAW);
        const loc = gl.getAttribLocation(prog, name);
        gl.enableVertexAttribArray(loc);
        gl.vertexAttribPointer(loc, size, gl.FLOAT, false, 0, 0);
      };
      attrib('p', decode(m.position), 3);
      attrib('n', decode(m.normal), 3);
      attrib('t', decode(m.uv), 2);
      const ibuf = gl.createBuffer();
      gl.bindBuffer(gl.ELEMENT_ARRAY_BUFFER, ibuf);
      const uint = m.indexType === 5125;
      if (uint && !gl.getExtension('OES_element_index_uint')) throw new Error('no 32-bit indices');
      gl.bufferData(
        gl.ELEMENT_ARRAY_BUFFER,
        uint ? new Uint32Array(decode(m.index)) : new Uint16Array(decode(m.index)),
        gl.STATIC_DRAW,
      );
      const img = new Image();
      img.src = tex;
      await img.decode();
      const texture = gl.createTexture();
      gl.bindTexture(gl.TEXTURE_2D, texture);
      gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGB, gl.RGB, gl.UNSIGNED_BYTE, img);
      gl.generateMipmap(gl.TEXTURE_2D);
      gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.LINEAR_MIPMAP_LINEAR);
      gl.enable(gl.DEPTH_TEST);

      // Column-major 4x4 matrices.
      const mul = (a, b) => {
        const o = new Array(16).fill(0);
        for (let c = 0; c < 4; c++)
          for (let r = 0; r < 4; r++) for (let k = 0; k < 4; k++) o[c * 4 + r] += a[k * 4 + r] * b[c * 4 + k];
        return o;
      };
      const rotY = (a) => [Math.cos(a), 0, -Math.sin(a), 0, 0, 1, 0, 0, Math.sin(a), 0, Math.cos(a), 0, 0, 0, 0, 1];
      const rotX = (a) => [1, 0, 0, 0, 0, Math.cos(a), Math.sin(a), 0, 0, -Math.sin(a), Math.cos(a), 0, 0, 0, 0, 1];
      const move = (x, y, z) => [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, x, y, z, 1];
      const f = 1 / Math.tan((opts.fovY * Math.PI) / 360);
      const near = 1;
      const far = 200;
      const aspect = canvas.width / canvas.height;
      const proj = [f / aspect, 0, 0, 0, 0, f, 0, 0, 0, 0, (far + near) / (near - far), -1, 0, 0, (2 * far * near) / (near - far), 0];
      window.render = (trueYaw, pitch, light, distance) => {
        // True yaw is positive when the head turns to its own right: the face, looking along +z
        // at a camera on +z, swings towards −x (the image's left), a negative turn about +y.
        const rad = Math.PI / 180;
        const model = mul(rotY(-trueYaw * rad), mul(rotX(-pitch * rad), move(-opts.pivot[0], -opts.pivot[1], -opts.pivot[2])));
        const mv = mul(move(0, 0, -distance), model);
        gl.viewport(0, 0, canvas.width, canvas.height);
        gl.clearColor(0.55, 0.57, 0.6, 1);
        gl.clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT);
        gl.uniformMatrix4fv(gl.getUniformLocation(prog, 'mv'), false, new Float32Array(mv));
        gl.uniformMatrix4fv(gl.getUniformLocation(prog, 'proj'), false, new Float32Array(proj));
        gl.uniform3fv(gl.getUniformLocation(prog, 'light'), new Float32Array(light));
        gl.drawElements(gl.TRIANGLES, m.count, uint ? gl.UNSIGNED_INT : gl.UNSIGNED_SHORT, 0);
        return canvas.toDataURL('image/jpeg', 0.92);
      };
  })(${JSON.stringify(mesh)}, ${JSON.stringify(texture)}, ${JSON.stringify({ fovY: FOV_Y, pivot: PIVOT })})`);
}

export interface Reading {
  trueYaw: number;
  pitch: number;
  light: string;
  distance: string;
  faces: number;
  yaw: number | null;
  eyes: number | null;
}

/** Least-squares line y = a + b x with the residuals' standard deviation. */
export function fitLine(points: { x: number; y: number }[]) {
  const n = points.length;
  const mx = points.reduce((s, p) => s + p.x, 0) / n;
  const my = points.reduce((s, p) => s + p.y, 0) / n;
  const sxy = points.reduce((s, p) => s + (p.x - mx) * (p.y - my), 0);
  const sxx = points.reduce((s, p) => s + (p.x - mx) ** 2, 0);
  const slope = sxy / sxx;
  const intercept = my - slope * mx;
  const residualSd = Math.sqrt(points.reduce((s, p) => s + (p.y - intercept - slope * p.x) ** 2, 0) / (n - 2));
  return { slope, intercept, residualSd, n };
}

/** Renders every view and reads it with the engine's face reader. */
async function renderAndRead(dir: string, outDir: string | undefined) {
  const glb = await readFile(path.join(dir, SCAN.glb.file));
  const tex = await readFile(path.join(dir, SCAN.texture.file));
  for (const [bytes, want] of [
    [glb, SCAN.glb],
    [tex, SCAN.texture],
  ] as const)
    if (sha256(bytes) !== want.sha256) throw new Error(`${want.file}: not the scan this calibration used`);
  if (outDir) await mkdir(outDir, { recursive: true });
  const human = await loadHuman();
  const browser = await launchBrowser(['--use-gl=angle', '--use-angle=swiftshader', '--enable-unsafe-swiftshader']);
  const readings: Reading[] = [];
  try {
    const page = await browser.newPage();
    await setupPage(page, parseGlb(glb), `data:image/jpeg;base64,${tex.toString('base64')}`);
    const quick = process.argv.includes('--quick');
    for (const [distance, d] of Object.entries(DISTANCES).slice(0, quick ? 1 : undefined))
      for (const [light, l] of Object.entries(LIGHTS).slice(0, quick ? 1 : undefined))
        for (const pitch of quick ? [0] : PITCHES)
          for (const trueYaw of quick ? [-40, -20, 0, 20, 40] : YAWS) {
            const url = (await page.evaluate(`render(${trueYaw}, ${pitch}, ${JSON.stringify(l)}, ${d})`)) as string;
            const jpeg = Buffer.from(url.slice(url.indexOf(',') + 1), 'base64');
            const name = `${distance}_${light}_p${pitch}_y${trueYaw}.jpg`;
            if (outDir) await writeFile(path.join(outDir, name), jpeg);
            const { faces } = await readFaces(jpeg, human);
            const r = {
              trueYaw,
              pitch,
              light,
              distance,
              faces: faces.length,
              yaw: faces[0]?.yaw ?? null,
              eyes: faces[0]?.eyes ?? null,
            };
            readings.push(r);
            console.log(name, r.faces, r.yaw, r.eyes);
          }
  } finally {
    await browser.close();
  }
  return readings;
}

async function main() {
  const dir = process.argv[2];
  if (!dir) throw new Error('usage: yaw-calibration.ts <scan dir> [--out <dir>] | --refit');
  const outAt = process.argv.indexOf('--out');
  const jsonPath = path.join(here, 'yaw-calibration.json');
  // --refit: the fit and the conversion again from the stored readings, without rendering.
  const readings: Reading[] =
    dir === '--refit'
      ? JSON.parse(await readFile(jsonPath, 'utf8')).readings
      : await renderAndRead(dir, outAt > 0 ? process.argv[outAt + 1] : undefined);
  const read = readings.filter((r) => r.faces === 1 && r.yaw !== null);
  const fit = fitLine(read.map((r) => ({ x: r.trueYaw, y: r.yaw! })));
  const perYaw = YAWS.map((trueYaw) => {
    const ys = read.filter((r) => r.trueYaw === trueYaw).map((r) => r.yaw!);
    const mean = ys.reduce((s, y) => s + y, 0) / Math.max(1, ys.length);
    return {
      trueYaw,
      read: ys.length,
      of: readings.filter((r) => r.trueYaw === trueYaw).length,
      mean: Math.round(mean * 10) / 10,
      min: ys.length ? Math.min(...ys) : null,
      max: ys.length ? Math.max(...ys) : null,
    };
  });
  // Both sides folded (a left turn's reading negated): the rule is symmetric.
  const folded = (r: Reading) => (r.trueYaw < 0 ? -r.yaw! : r.yaw!);
  const perAngle = YAWS.filter((y) => y > 0).map((angle) => {
    const ys = read.filter((r) => Math.abs(r.trueYaw) === angle).map(folded);
    const mean = ys.reduce((s, y) => s + y, 0) / ys.length;
    const sd = Math.sqrt(ys.reduce((s, y) => s + (y - mean) ** 2, 0) / (ys.length - 1));
    const r1 = (n: number) => Math.round(n * 10) / 10;
    return { trueYaw: angle, n: ys.length, mean: r1(mean), sd: r1(sd), min: Math.min(...ys), max: Math.max(...ys) };
  });
  const near = fitLine(read.filter((r) => Math.abs(r.trueYaw) <= 25).map((r) => ({ x: r.trueYaw, y: r.yaw! })));
  const at = (angle: number) => perAngle.find((p) => p.trueYaw === angle)!;
  // The product rule (docs/checks-face.md) in Human's units, on the conservative side of the spread.
  const converted = {
    turnYaw: Math.floor(Math.min(at(TRUE_RULE.turn).min, at(TRUE_RULE.turn).mean - 2 * at(TRUE_RULE.turn).sd)),
    frontalYaw: Math.ceil(Math.max(at(TRUE_RULE.frontal).max, at(TRUE_RULE.frontal).mean + 2 * at(TRUE_RULE.frontal).sd)),
  };
  const result = {
    scan: SCAN,
    setup: { width: WIDTH, height: HEIGHT, fovY: FOV_Y, pivot: PIVOT, distances: DISTANCES, lights: LIGHTS, pitches: PITCHES },
    fit,
    fitWithin25: near,
    perYaw,
    perAngle,
    rule: { trueDegrees: TRUE_RULE, humanUnits: converted },
    readings,
  };
  await writeFile(jsonPath, `${JSON.stringify(result, null, 1)}\n`);
  console.log(JSON.stringify({ fit, fitWithin25: near, perAngle, converted }, null, 1));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) await main();
