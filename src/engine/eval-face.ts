import '../warnings.js';
import { CONDITIONS, documentImage, loadIdentities, screenReplay, variant, type Condition } from './face/corpus.js';
import { FACE_MATCH_THRESHOLD, livenessDecision } from './face/decide.js';
import { EnginePool, defaultConcurrency } from './pool/index.js';

/**
 * `npm run engine:eval:face`: face match and liveness on the face corpus (test/engine/faces),
 * through the same worker pool the service uses. Prints the README's tables.
 */
const pct = (n: number, of: number) => (of ? `${((100 * n) / of).toFixed(1)}%` : 'n/a');
const mean = (xs: number[]) => (xs.length ? (xs.reduce((a, b) => a + b, 0) / xs.length).toFixed(2) : 'n/a');

async function main(): Promise<void> {
  const pool = new EnginePool({ concurrency: Number(process.env.ENGINE_CONCURRENCY) || defaultConcurrency(), timeoutMs: 300_000 });
  const started = Date.now();
  try {
    const read = (image: Buffer) => pool.run('face.read', { image });
    const people = await loadIdentities({ read });
    const embeddingOf = async (image: Buffer) => (await read(image)).faces[0]?.embedding ?? null;
    const documents = await Promise.all(people.map(async (p) => embeddingOf(await documentImage(p.portrait))));
    const genuine = new Map<Condition, (number | null)[]>();
    const impostor: number[] = [];
    let readTimes = 0;
    let reads = 0;
    for (const condition of CONDITIONS) {
      const t = Date.now();
      const selfies = await Promise.all(people.map(async (p) => embeddingOf(await variant(p.portrait, condition))));
      readTimes += Date.now() - t;
      reads += people.length;
      const scores: (number | null)[] = [];
      for (let i = 0; i < people.length; i++) {
        for (let j = 0; j < people.length; j++) {
          const a = documents[i];
          const b = selfies[j];
          const s = a && b ? await pool.run('face.similarity', { a, b }) : null;
          if (i === j) scores.push(s);
          else if (s !== null) impostor.push(s);
        }
      }
      genuine.set(condition, scores);
    }
    impostor.sort((a, b) => a - b);
    // The lowest threshold with at most 1% of impostor pairs at or above it.
    const far1 = impostor[Math.min(impostor.length - 1, Math.ceil(impostor.length * 0.99))] + 0.001;
    const lines = [
      `Face match: ${people.length} people, ${impostor.length} impostor pairs; threshold at 1% false accepts = ${far1.toFixed(3)}; default threshold ${FACE_MATCH_THRESHOLD} (false accepts there: ${pct(impostor.filter((s) => s >= FACE_MATCH_THRESHOLD).length, impostor.length)})`,
      '',
      '| selfie condition | genuine pairs | face found | true accepts at 1% FAR | true accepts at default threshold | mean similarity |',
      '|---|---|---|---|---|---|',
    ];
    const all: (number | null)[] = [];
    for (const [condition, scores] of genuine) {
      all.push(...scores);
      const found = scores.filter((s): s is number => s !== null);
      lines.push(`| ${condition} | ${scores.length} | ${pct(found.length, scores.length)} | ${pct(found.filter((s) => s >= far1).length, scores.length)} | ${pct(found.filter((s) => s >= FACE_MATCH_THRESHOLD).length, scores.length)} | ${mean(found)} |`);
    }
    const allFound = all.filter((s): s is number => s !== null);
    lines.push(`| **all** | ${all.length} | ${pct(allFound.length, all.length)} | ${pct(allFound.filter((s) => s >= far1).length, all.length)} | ${pct(allFound.filter((s) => s >= FACE_MATCH_THRESHOLD).length, all.length)} | ${mean(allFound)} |`);
    lines.push('', ...(await livenessTable(pool, people.map((p) => p.portrait))));
    lines.push('', `Face read (detect + embed + age + antispoof + liveness): ${(readTimes / reads).toFixed(0)} ms per selfie at concurrency ${Number(process.env.ENGINE_CONCURRENCY) || defaultConcurrency()}; whole eval ${((Date.now() - started) / 1000).toFixed(0)} s.`);
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    await pool.close();
  }
}

/** Liveness at the default threshold on the corpus's captures and on simulated screen replays. */
async function livenessTable(pool: EnginePool, portraits: Buffer[]): Promise<string[]> {
  const rows = ['| liveness input | images | one face found | passes (default) | review | fails | mean antispoof | mean liveness |', '|---|---|---|---|---|---|---|---|'];
  const sets: [string, Buffer[]][] = [
    ['photo of a real face (corpus portrait)', portraits],
    ['simulated screen replay of that photo', await Promise.all(portraits.map(screenReplay))],
  ];
  for (const [name, images] of sets) {
    const results = await Promise.all(images.map((image) => pool.run('face.liveness', { frames: [image] })));
    const decisions = results.map((r) => livenessDecision(r, {}));
    const count = (v: string) => decisions.filter((d) => d.verdict === v).length;
    rows.push(`| ${name} | ${images.length} | ${pct(results.filter((r) => r.faces === 1).length, images.length)} | ${pct(count('approve'), images.length)} | ${pct(count('review'), images.length)} | ${pct(count('reject'), images.length)} | ${mean(results.map((r) => r.real ?? 0))} | ${mean(results.map((r) => r.live ?? 0))} |`);
  }
  return rows;
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack ?? error}\n`);
  process.exit(1);
});
