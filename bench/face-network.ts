import type pg from 'pg';
import { FACE_NETWORK_SIMILARITY, FACE_SEARCH_SQL, faceSearchParams } from '../src/services/fraud-networks/index.js';
import { CENTER, faceBuckets } from '../src/services/fraud-networks/face-index.js';
import { openPool, measureLoop } from './database.js';
import type { Measurement } from './load.js';
import type { BenchContext, Scenario } from './scenarios.js';

/**
 * Fraud networks by face at scale: the same-face search the face_match check runs (the
 * service's own statement, FACE_SEARCH_SQL) against 100,000 stored faces, each probe a face
 * not stored. Stored faces are synthetic descriptors shaped like real ones (the real photos'
 * mean descriptor, face-index.ts CENTER, plus a spread in a 24-dimension subspace, so unrelated
 * faces have a cosine of about 0.7 as on the real photos); one stored face has a near copy among the probes, which the
 * search must find before anything is timed. The rows belong to the bench account (mode
 * `live`, verification ids that name no verification) and are removed first and after.
 */
const STORED = 100_000;
const DIMS = 128;
const SUBSPACE = 24;
const PREFIX = 'fsg_bench_';

function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), state | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (((t ^ (t >>> 14)) >>> 0) + 1) / 4294967297;
  };
}

const unit = (v: number[]) => {
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
};

/** A generator of synthetic face descriptors (see above). */
function faces(seed: number): () => number[] {
  const rnd = random(seed);
  const gauss = () => Math.sqrt(-2 * Math.log(rnd())) * Math.cos(2 * Math.PI * rnd());
  const shape = random(42);
  const shapeGauss = () => Math.sqrt(-2 * Math.log(shape())) * Math.cos(2 * Math.PI * shape());
  const spread = Math.sqrt(Math.max(0.05, 1 - CENTER.reduce((s, x) => s + x * x, 0)));
  const basis = Array.from({ length: SUBSPACE }, () => unit(Array.from({ length: DIMS }, shapeGauss)));
  return () => {
    const w = Array.from({ length: SUBSPACE }, gauss);
    return unit(
      CENTER.map((m, i) => m + (spread / Math.sqrt(SUBSPACE)) * basis.reduce((s, b, k) => s + w[k]! * b[i]!, 0)),
    );
  };
}

interface Prepared {
  pool: pg.Pool;
  probes: number[][];
  candidates: number;
  plan: string;
}

async function prepare(ctx: BenchContext): Promise<Prepared> {
  const pool = openPool(ctx);
  const started = Date.now();
  await pool.query(`delete from fraud_signals where id like '${PREFIX}%'`);
  const next = faces(7);
  let twin: number[] = [];
  for (let done = 0; done < STORED;) {
    const rows = Math.min(5000, STORED - done);
    const ids: string[] = [];
    const embeddings: string[] = [];
    const buckets: string[] = [];
    for (let i = 0; i < rows; i++) {
      const face = next();
      if (done + i === 12_345) twin = face;
      ids.push(`${PREFIX}${done + i}`);
      embeddings.push(`{${face.map((x) => x.toFixed(6)).join(',')}}`);
      buckets.push(`{${faceBuckets(face).join(',')}}`);
    }
    await pool.query(
      `insert into fraud_signals (id, merchant_id, mode, verification_id, kind, holder_fingerprint, embedding, face_buckets)
       select id, $1, 'live', 'vs_' || id, 'face', 'bench', e::real[], b::int[] from unnest($2::text[], $3::text[], $4::text[]) as t(id, e, b)`,
      [ctx.merchantId, ids, embeddings, buckets],
    );
    done += rows;
  }
  await pool.query('vacuum analyze fraud_signals');
  ctx.log(`  seeded ${STORED} face signals in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  const probe = faces(99);
  const probes = Array.from({ length: 200 }, () => probe());
  // The near copy of a stored face (a second photo of it) must be found before anything is timed.
  const copy = unit(twin.map((x, i) => x + 0.01 * Math.sin(i)));
  const found = await pool.query(
    `select s.id from fraud_signals s where s.kind = 'face' and s.face_buckets && $4::int[] and s.mode = $1 and s.id <> $3
       and (select sum(a * b) from unnest(s.embedding, $2::real[]) as t(a, b)) >= $5`,
    faceSearchParams('live', copy, 'none'),
  );
  if (!found.rows.some((r: { id: string }) => r.id === `${PREFIX}12345`))
    throw new Error('face network bench: the near copy of a stored face was not found');
  const counted = await pool.query(
    `select count(*)::int as n from fraud_signals where kind = 'face' and face_buckets && $1::int[] and mode = 'live'`,
    [faceBuckets(probes[0]!)],
  );
  const plan = await pool.query(`explain analyze ${FACE_SEARCH_SQL}`, faceSearchParams('live', probes[0]!, 'none'));
  const planText = plan.rows.map((r: Record<string, string>) => r['QUERY PLAN']).join(' | ');
  if (!/fraud_signals_face_buckets_index/.test(planText))
    throw new Error(`face network bench: the search does not use the index: ${planText}`);
  const full = Date.now();
  await pool.query(
    `select count(*) from fraud_signals s where s.kind = 'face' and s.mode = 'live' and (select sum(a * b) from unnest(s.embedding, $1::real[]) as t(a, b)) >= $2`,
    [probes[0], FACE_NETWORK_SIMILARITY],
  );
  ctx.log(
    `  one probe shares a bucket with ${counted.rows[0].n} of ${STORED} faces; the index is used (${planText.match(/Execution Time: [0-9.]+ ms/)?.[0] ?? ''}); a full scan without it takes ${Date.now() - full} ms`,
  );
  return { pool, probes, candidates: counted.rows[0].n, plan: planText };
}

export const faceNetworkScenarios: Scenario[] = [
  {
    name: 'face-network-search',
    label: `same-face search (fraud networks) against ${STORED / 1000}k stored faces, SQL`,
    run: async (ctx): Promise<Measurement> => {
      const p = await prepare(ctx);
      let turn = 0;
      try {
        // One search at a time: the figure is one search's latency (the check runs it once per session).
        return await measureLoop({ ...ctx, settings: { ...ctx.settings, connections: 1 } }, async () => {
          await p.pool.query(FACE_SEARCH_SQL, faceSearchParams('live', p.probes[turn++ % p.probes.length]!, 'none'));
        });
      } finally {
        await p.pool.query(`delete from fraud_signals where id like '${PREFIX}%'`);
        await p.pool.end();
      }
    },
  },
];
