import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Human } from '@vladmandic/human';
import { narrowConcatKernel } from './wasm-concat.js';

const require = createRequire(import.meta.url);

/**
 * The package's `exports` map names its wasm build without a leading "./", which Node
 * ignores; the build is loaded by its file path instead (the tfjs-node build downloads a
 * native binary at install and fails offline).
 */
const distDir = path.dirname(require.resolve('@vladmandic/human'));
const modelDir = path.join(distDir, '..', 'models');
const wasmDir = path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm'));

/** Face detector, mesh (for alignment), description (embedding, age), antispoof and liveness; nothing else. */
export const HUMAN_CONFIG = {
  backend: 'wasm',
  wasmPath: `${pathToFileURL(wasmDir).href}/`,
  modelBasePath: `${pathToFileURL(modelDir).href}/`,
  debug: false,
  async: false,
  warmup: 'none',
  cacheSensitivity: 0,
  cacheModels: false,
  face: {
    enabled: true,
    detector: { rotation: true, maxDetected: 10, minConfidence: 0.5, iouThreshold: 0.1, return: false },
    mesh: { enabled: true },
    iris: { enabled: false },
    emotion: { enabled: false },
    description: { enabled: true },
    antispoof: { enabled: true },
    liveness: { enabled: true },
    attention: { enabled: false },
  },
  body: { enabled: false },
  hand: { enabled: false },
  object: { enabled: false },
  gesture: { enabled: false },
  segmentation: { enabled: false },
  filter: { enabled: false },
} as const;

/**
 * Which of Human's per-face models a reading runs. `all`: every model above (a selfie or a
 * frame: its age, antispoof and liveness scores are used). `portrait`: the detector and the mesh
 * only, for an image whose faces need no more than a box, a head turn and face_match's own
 * descriptor (descriptor.ts, not Human's): a document's printed portrait. Human merges a
 * detect() call's config into its own for good, so every call names all three.
 */
export type FaceModels = 'all' | 'portrait';

export const faceModelsConfig = (models: FaceModels) => {
  const enabled = models === 'all';
  return { face: { description: { enabled }, antispoof: { enabled }, liveness: { enabled } } };
};

/**
 * Human reads its models with the global fetch, which in Node does not read file: URLs.
 * This serves file: URLs from disk and refuses anything else, so the engine can never
 * download a model at run time.
 */
function offlineFetch(): void {
  const marker = Symbol.for('idv.offline-fetch');
  const g = globalThis as typeof globalThis & { [k: symbol]: boolean };
  if (g[marker]) return;
  globalThis.fetch = (async (input: string | URL | Request) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    if (!url.startsWith('file:')) throw new Error(`the face engine reads its models from disk only, not ${url}`);
    const body = await readFile(fileURLToPath(url));
    return new Response(body, {
      status: 200,
      headers: { 'content-type': url.endsWith('.json') ? 'application/json' : 'application/octet-stream' },
    });
  }) as typeof fetch;
  g[marker] = true;
}

let loading: Promise<Human> | null = null;

/** One Human per thread (a pool worker), models loaded on first use from the npm package. */
export function loadHuman(): Promise<Human> {
  loading ??= (async () => {
    offlineFetch();
    const { Human: HumanClass } = require(
      path.join(distDir, 'human.node-wasm.js'),
    ) as typeof import('@vladmandic/human');
    const human = new HumanClass(HUMAN_CONFIG as never);
    await human.load();
    narrowConcatKernel(human.tf);
    return human;
  })().catch((error) => {
    loading = null;
    throw error;
  });
  return loading;
}
