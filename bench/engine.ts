import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { analyseDocument, stopOcr } from '../src/engine/document/index.js';
import { loadIdentities, variant, withPortrait } from '../eval/faces/corpus.js';
import { EnginePool } from '../src/engine/pool/index.js';
import { call, expectStatus } from './api.js';
import type { Measurement } from './load.js';
import type { BenchContext, Scenario } from './scenarios.js';
import { cpuSnapshot, cpuUse, serviceSeconds, type CpuUse } from './engine-cpu.js';

/**
 * Live sessions decided by the engine, and the HTTP server's responsiveness while they run.
 *
 * Each session is what an integrator sends: a live verification of document, face_match and
 * liveness, a passport page (the document corpus's renderer, real TD3 zone, a real face in its
 * portrait box, photographed on a desk) and a selfie of the same face, both through presigned
 * uploads. Timed from the last upload's completion (the submit) to the verdict read back by
 * polling (pollDelay). Two modes: BENCH_ENGINE_SINGLE_SESSIONS sessions one at a time (the
 * latency one applicant sees), then BENCH_ENGINE_SESSIONS_IN_FLIGHT sessions at once for
 * BENCH_ENGINE_SECONDS (throughput with the pool busy); meanwhile a paced probe sends an
 * authenticated GET /v1/merchant at PROBE_RATE per second (open loop: a slow answer does not
 * delay the next request), and the same probe runs once before, on an idle server, for
 * comparison. Each mode reports the machine's load average, and where a session's time went
 * (from the checks' and the verification's saved timestamps).
 */
const PROBE_RATE = 20;
/**
 * The wait before the next poll of a session: a twentieth of the time it has run, between 100
 * and 500 ms, so a reading is late by at most about 5% (100 ms under 2 s). Every 100 ms, four
 * sessions of 10-15 s each cost the service 40 GETs a second (about 0.15 CPU s a session).
 */
const pollDelay = (elapsedMs: number) => Math.min(500, Math.max(100, elapsedMs / 20));
const int = (name: string, fallback: number) => Math.max(1, Number(process.env[name]) || fallback);

/** One synthetic passport holder per face (the same face always carries the same identity, so no fraud network forms). */
const SURNAMES = [
  'NOVAK',
  'SILVA',
  'HANSEN',
  'KOWALSKI',
  'MURPHY',
  'ROSSI',
  'DUBOIS',
  'MEYER',
  'JANSEN',
  'LARSEN',
  'PETROV',
  'OKAFOR',
  'TANAKA',
  'MORENO',
  'LINDQVIST',
  'FISCHER',
  'COSTA',
  'BERG',
  'KELLY',
  'WALSH',
];
const GIVEN = ['ANNA', 'MARIA', 'ELENA', 'SOFIA', 'LAURA', 'NORA', 'CLARA', 'EVA', 'IRIS', 'LENA'];
const holderFor = (i: number) => ({
  lastName: SURNAMES[i % SURNAMES.length]!,
  firstName: GIVEN[i % GIVEN.length]!,
  number: `BX${String(4711 + i * 37).padStart(7, '0')}`,
  country: 'UTO',
  nationality: 'UTO',
  birth: `${1960 + (i % 40)}-0${1 + (i % 9)}-1${i % 10}`,
  expiry: '2034-06-30',
  sex: 'F' as const,
});

/** The document corpus's renderer lives with the tests (TypeScript); the bench loads it through tsx. */
interface Renderer {
  passportPage(holder: ReturnType<typeof holderFor>, mrz: string[]): Promise<Buffer>;
  td3(holder: ReturnType<typeof holderFor>): string[];
  applyCondition(image: Buffer, condition: 'photo'): Promise<Buffer>;
}

async function renderer(): Promise<Renderer> {
  const { tsImport } = await import('tsx/esm/api');
  const from = (file: string) =>
    tsImport(new URL(`../../test/engine/corpus/${file}`, import.meta.url).href, import.meta.url);
  const [render, documents, conditions] = await Promise.all([
    from('render.ts'),
    from('documents.ts'),
    from('conditions.ts'),
  ]);
  return { passportPage: render.passportPage, td3: documents.td3, applyCondition: conditions.applyCondition };
}

interface SessionImages {
  document: Buffer;
  selfie: Buffer;
}

/** Every corpus face as a passport photo and a selfie; a pool of this process finds the faces (setup, not timed). */
async function buildImages(): Promise<SessionImages[]> {
  const pool = new EnginePool({ concurrency: 1, timeoutMs: 300_000 });
  try {
    const people = await loadIdentities({ read: (image) => pool.run('face.read', { image }) });
    const r = await renderer();
    return Promise.all(
      people.map(async (p, i) => ({
        document: await r.applyCondition(
          await withPortrait(await r.passportPage(holderFor(i), r.td3(holderFor(i))), p.portrait),
          'photo',
        ),
        selfie: await variant(p.portrait, 'tight_crop'),
      })),
    );
  } finally {
    await pool.close();
  }
}

async function upload(
  ctx: BenchContext,
  key: string,
  id: string,
  body: Record<string, unknown>,
  bytes: Buffer,
): Promise<void> {
  const created = expectStatus(
    await call(`${ctx.serviceUrl}/v1/verifications/${id}/uploads`, key, 'POST', {
      content_type: 'image/jpeg',
      ...body,
    }),
    201,
    'POST uploads',
  );
  const put = await fetch(created.body.upload_url, {
    method: 'PUT',
    body: new Uint8Array(bytes),
    headers: { 'content-type': 'image/jpeg' },
  });
  if (put.status !== 200) throw new Error(`engine bench: upload PUT answered ${put.status}`);
  await put.arrayBuffer();
  const complete = () =>
    call(`${ctx.serviceUrl}/v1/verifications/${id}/uploads/${created.body.upload_id}/complete`, key, 'POST');
  // A PUT answered 200 is stored: the embedded store once lost an object PUT beside a delete in
  // its folder (src/embedded/s3.ts, keepFoldersOnDelete), and the bench repeated complete then.
  const completed = await complete();
  expectStatus(completed, 200, 'POST uploads/complete');
}

/** Where a session's time went, in ms from the submit: each check saved, the verdict saved, the verdict read. */
type Phases = Record<string, number>;

interface SessionOutcome {
  ms: number;
  status: string;
  reasons: string[];
  phases: Phases;
}

/**
 * The session's milestones from the server's saved timestamps (same clock as this process):
 * each check's save after the one before (the first from the submit: job pickup, evidence
 * read, analysis, save), the roll-up, and the poll that saw the verdict.
 */
function phasesOf(
  body: { updated_at: string; checks: { type: string; updated_at: string }[] },
  submittedAt: number,
  seenAt: number,
): Phases {
  const phases: Phases = {};
  let last = submittedAt;
  for (const check of [...body.checks].sort((a, b) => Date.parse(a.updated_at) - Date.parse(b.updated_at))) {
    const at = Date.parse(check.updated_at);
    phases[check.type] = Math.max(0, at - last);
    last = at;
  }
  phases.settle = Math.max(0, Date.parse(body.updated_at) - last);
  phases.poll = Math.max(0, seenAt - Math.max(last, Date.parse(body.updated_at)));
  return phases;
}

/** One session from creation to verdict; returns submit-to-verdict milliseconds, the status and its phases. */
async function oneSession(ctx: BenchContext, key: string, images: SessionImages): Promise<SessionOutcome> {
  const created = expectStatus(
    await call(`${ctx.serviceUrl}/v1/verifications`, key, 'POST', {
      checks: [{ type: 'document' }, { type: 'face_match' }, { type: 'liveness' }],
    }),
    201,
    'POST /v1/verifications (live)',
  );
  const id = created.body.id as string;
  await upload(ctx, key, id, { kind: 'document', side: 'front' }, images.document);
  await upload(ctx, key, id, { kind: 'selfie' }, images.selfie);
  const submitted = performance.now();
  const submittedAt = Date.now();
  for (;;) {
    const res = await call(`${ctx.serviceUrl}/v1/verifications/${id}`, key, 'GET');
    if (['approved', 'rejected', 'manual_review', 'expired'].includes(res.body?.status)) {
      const ms = performance.now() - submitted;
      const reasons = (res.body.checks as { type: string; reason_codes: string[] }[]).flatMap((c) =>
        c.reason_codes.map((code) => `${c.type}:${code}`),
      );
      return { ms, status: res.body.status, reasons, phases: phasesOf(res.body, submittedAt, submittedAt + ms) };
    }
    if (performance.now() - submitted > 600_000) throw new Error(`engine bench: ${id} did not settle in 10 minutes`);
    await new Promise((r) => setTimeout(r, pollDelay(performance.now() - submitted)));
  }
}

/** Authenticated GETs at a fixed rate until `until` resolves (or for `seconds`); each answer's latency in ms. */
async function probe(ctx: BenchContext, stop: { done: boolean } | number): Promise<number[]> {
  const latencies: number[] = [];
  const inFlight: Promise<void>[] = [];
  const end = typeof stop === 'number' ? performance.now() + stop * 1000 : Infinity;
  for (
    let next = performance.now();
    typeof stop === 'number' ? performance.now() < end : !stop.done;
    next += 1000 / PROBE_RATE
  ) {
    await new Promise((r) => setTimeout(r, Math.max(0, next - performance.now())));
    const sent = performance.now();
    inFlight.push(
      fetch(`${ctx.serviceUrl}/v1/merchant`, { headers: { authorization: `Bearer ${ctx.sandboxKey}` } }).then(
        async (res) => {
          await res.arrayBuffer();
          if (res.status !== 200) throw new Error(`engine bench probe: GET /v1/merchant answered ${res.status}`);
          latencies.push(performance.now() - sent);
        },
      ),
    );
  }
  await Promise.all(inFlight);
  return latencies;
}

const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] ?? 0;
const r1 = (n: number) => Math.round(n * 10) / 10;
const r2 = (n: number) => Math.round(n * 100) / 100;

interface SessionRun {
  durations: number[];
  statuses: Record<string, number>;
  /** check:reason code -> sessions carrying it (why sessions were not approved). */
  reasons: Record<string, number>;
  /** Each session's phases (see phasesOf). */
  phases: Phases[];
  seconds: number;
  /** One-minute load average when the mode started and when it ended. */
  load: [number, number];
  /** The service's and its database's CPU over the mode, split (null without /proc). */
  cpu: CpuUse | null;
}

/** A run's shell; `finish` stamps its duration, end load and the service CPU it used. */
function startRun(): { run: SessionRun; finish: () => SessionRun } {
  const started = performance.now();
  const cpu = cpuSnapshot();
  const run: SessionRun = {
    durations: [],
    statuses: {},
    reasons: {},
    phases: [],
    seconds: 0,
    load: [load1(), 0],
    cpu: null,
  };
  const finish = () => {
    run.seconds = (performance.now() - started) / 1000;
    run.load[1] = load1();
    run.cpu = cpuUse(cpu, cpuSnapshot(), run.durations.length);
    return run;
  };
  return { run, finish };
}

const load1 = () => Math.round(os.loadavg()[0]! * 10) / 10;

/** An account per use of the corpus: each face is used once per account (a repeated face would form a fraud network). */
function accountKeys(ctx: BenchContext, label: string): (n: number) => Promise<string> {
  const accounts: Promise<string>[] = [];
  return (n) => (accounts[n] ??= ctx.bootstrap(`bench-engine-${label}-${Date.now()}-${n}`).then((a) => a.liveKey));
}

function record(run: SessionRun, outcome: SessionOutcome): void {
  run.durations.push(outcome.ms);
  run.phases.push(outcome.phases);
  run.statuses[outcome.status] = (run.statuses[outcome.status] ?? 0) + 1;
  for (const reason of outcome.reasons) run.reasons[reason] = (run.reasons[reason] ?? 0) + 1;
}

/** `count` sessions one after another (one in flight): the latency an applicant sees on an otherwise idle service. */
async function singleSessions(ctx: BenchContext, images: SessionImages[], count: number): Promise<SessionRun> {
  const keyFor = accountKeys(ctx, 'single');
  await keyFor(0);
  const { run, finish } = startRun();
  for (let i = 0; i < count; i++) {
    record(run, await oneSession(ctx, await keyFor(Math.floor(i / images.length)), images[i % images.length]!));
  }
  return finish();
}

/** Keeps `inFlight` sessions running until `seconds` have passed; each corpus face is used once per account. */
async function driveSessions(
  ctx: BenchContext,
  images: SessionImages[],
  inFlight: number,
  seconds: number,
): Promise<SessionRun> {
  const keyFor = accountKeys(ctx, 'busy');
  // Accounts for up to a session a second, made before the clock starts (each is a CLI process).
  await Promise.all(Array.from({ length: Math.ceil(seconds / images.length) }, (_, n) => keyFor(n)));
  const { run, finish } = startRun();
  const deadline = performance.now() + seconds * 1000;
  let next = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (performance.now() < deadline) {
        const i = next++;
        const key = await keyFor(Math.floor(i / images.length));
        record(run, await oneSession(ctx, key, images[i % images.length]!));
      }
    }),
  );
  return finish();
}

/** The engine's own time per check, one at a time in this process (median of a few): what a session costs before any queueing. */
async function engineTimes(
  images: SessionImages[],
): Promise<{ documentMs: number; documentP99Ms: number; faceMatchMs: number; livenessMs: number }> {
  const pool = new EnginePool({ concurrency: 1, timeoutMs: 300_000 });
  const time = async (n: number, task: (i: number) => Promise<unknown>) => {
    await task(0); // warm-up: model and language data loading is not a check's cost
    const ms: number[] = [];
    for (let i = 0; i < n; i++) {
      const t = performance.now();
      await task(i % images.length);
      ms.push(performance.now() - t);
    }
    return { p50: Math.round(pct(ms, 50)), p99: Math.round(pct(ms, 99)) };
  };
  try {
    // The document check on every page once (the issue's p50 and p99 of one check); the faces on a few.
    const document = await time(images.length, (i) => analyseDocument({ front: images[i]!.document }));
    return {
      documentMs: document.p50,
      documentP99Ms: document.p99,
      faceMatchMs: (
        await time(7, (i) => pool.run('face.match', { document: images[i]!.document, selfie: images[i]!.selfie }))
      ).p50,
      livenessMs: (await time(7, (i) => pool.run('face.liveness', { frames: [images[i]!.selfie] }))).p50,
    };
  } finally {
    await pool.close();
    await stopOcr();
  }
}

/** Median of each phase over a run's sessions, in the order they happen. */
function phaseMedians(run: SessionRun): string {
  const names = [...new Set(run.phases.flatMap((p) => Object.keys(p)))];
  const order = ['document', 'face_match', 'liveness', 'settle', 'poll'];
  names.sort((a, b) => (order.indexOf(a) + 1 || 99) - (order.indexOf(b) + 1 || 99));
  return names
    .map(
      (n) =>
        `${n} ${Math.round(
          pct(
            run.phases.map((p) => p[n] ?? 0),
            50,
          ),
        )}`,
    )
    .join(', ');
}

/**
 * A run's figures for the results file; p99 of fewer than 100 sessions is their slowest.
 * `probeCpuSeconds`: what the GET probe cost the service over the run (busy mode), taken out
 * of the per-session figure it would otherwise inflate.
 */
function summary(run: SessionRun, inFlight: number, probeCpuSeconds = 0) {
  const cpu = run.cpu;
  return {
    sessions: run.durations.length,
    sessionsInFlight: inFlight,
    submitToVerdictP50Ms: Math.round(pct(run.durations, 50)),
    submitToVerdictP99Ms: Math.round(pct(run.durations, 99)),
    sessionsPerMinute: r1((60 * run.durations.length) / run.seconds),
    phaseMediansMs: phaseMedians(run),
    // The service's CPU per session (the ceiling on dedicated cores is 60 x cores / this with the database's, per minute).
    serviceCpuSecondsPerSession: cpu ? cpu.perSession.service : 'n/a',
    serviceCpuSecondsPerSessionWithoutProbe: cpu
      ? r2(cpu.perSession.service - probeCpuSeconds / run.durations.length)
      : 'n/a',
    probeCpuSeconds: r2(probeCpuSeconds),
    ...(cpu
      ? {
          cpuMainPerSession: cpu.perSession.main,
          cpuEnginePerSession: cpu.perSession.engine,
          cpuOtherThreadsPerSession: cpu.perSession.other,
          databaseCpuSecondsPerSession: cpu.perSession.database,
          serviceCores: cpu.serviceCores,
          databaseCores: cpu.databaseCores,
          engineThreadCores: cpu.engineCores,
          engineThreadsWaitingForCpu: cpu.engineWaiting,
          benchClientCores: cpu.clientCores,
          machineBusyCores: cpu.machineCores,
        }
      : {}),
    loadAverage: `${run.load[0]} -> ${run.load[1]}`,
    verdicts: Object.entries(run.statuses)
      .map(([s, n]) => `${s} ${n}`)
      .join(', '),
    reasons:
      Object.entries(run.reasons)
        .sort((a, b) => b[1] - a[1])
        .map(([r, n]) => `${r} ${n}`)
        .join(', ') || 'none',
  };
}

const describe = (label: string, s: ReturnType<typeof summary>, run: SessionRun) =>
  `  ${label}: ${s.sessions} in ${r1(run.seconds)} s (load ${s.loadAverage}), submit to verdict p50 ${s.submitToVerdictP50Ms} ms, ` +
  `p99 ${s.submitToVerdictP99Ms} ms, ${s.sessionsPerMinute} sessions/min (${s.verdicts}; reasons: ${s.reasons})\n` +
  `    phase medians (ms, each from the one before): ${s.phaseMediansMs}\n` +
  (run.cpu ? describeCpu(run.cpu, s.probeCpuSeconds / s.sessions) : '    service CPU: n/a (no /proc)');

/** Where the CPU went: per session by kind of thread, then what the service had of the machine. */
function describeCpu(cpu: CpuUse, probePerSession: number): string {
  const per = cpu.perSession;
  const session = per.service - probePerSession;
  const cores = os.cpus().length;
  return (
    `    CPU a session: service ${r2(session)} s (main thread ${per.main}, engine threads ${per.engine}, other threads ${per.other}` +
    (probePerSession > 0 ? `, less the GET probe's ${r2(probePerSession)} s, all on the main thread` : '') +
    `), database ${per.database} s: at most ${r1((60 * cores) / (session + per.database))} sessions/min on ${cores} dedicated cores\n` +
    `    the service used ${cpu.serviceCores} cores, its database ${cpu.databaseCores} and this client ${cpu.clientCores}, while the whole machine kept ${cpu.machineCores} of ${cores} busy; ` +
    `engine threads ran on ${cpu.engineCores} cores with ${cpu.engineWaiting} of them on average ready but waiting for a CPU`
  );
}

async function runEngineSessions(ctx: BenchContext): Promise<Measurement> {
  const seconds = int('BENCH_ENGINE_SECONDS', 60);
  const inFlight = int('BENCH_ENGINE_SESSIONS_IN_FLIGHT', 4);
  const singles = int('BENCH_ENGINE_SINGLE_SESSIONS', 12);
  ctx.log('  rendering the session images (corpus faces on passport pages, selfies)...');
  const images = await buildImages();
  // Warm-up, not timed: the service's pool threads load their models and OCR data on their first analysis.
  ctx.log(`  ${images.length} applicants; one warm-up session (models load in the service's pool)...`);
  const warm = await oneSession(ctx, (await ctx.bootstrap(`bench-engine-warm-${Date.now()}`)).liveKey, images[0]!);
  ctx.log(
    `  warm-up session: ${warm.status} in ${Math.round(warm.ms)} ms; idle probe: GET /v1/merchant at ${PROBE_RATE}/s for 10 s...`,
  );
  const idleCpu = cpuSnapshot();
  const idle = await probe(ctx, 10);
  const idleProbeCpu = serviceSeconds(idleCpu, cpuSnapshot());
  ctx.log(`  ${singles} live sessions one at a time...`);
  const single = await singleSessions(ctx, images, singles);
  ctx.log(`  ${inFlight} live sessions in flight for ${seconds} s, the probe running alongside...`);
  const stop = { done: false };
  const loaded = probe(ctx, stop);
  const sessions = await driveSessions(ctx, images, inFlight, seconds).finally(() => (stop.done = true));
  const busy = await loaded;
  ctx.log('  engine time per check, one at a time in the bench process...');
  const times = await engineTimes(images);
  const oneAtATime = summary(single, 1);
  // What a probe request costs the service, measured on the idle server (background jobs included, so slightly more).
  const busyRun = summary(sessions, inFlight, idleProbeCpu === null ? 0 : (idleProbeCpu / idle.length) * busy.length);
  const details = {
    ...busyRun,
    ...Object.fromEntries(Object.entries(oneAtATime).map(([k, v]) => [`single${k[0]!.toUpperCase()}${k.slice(1)}`, v])),
    idleGetP50Ms: r1(pct(idle, 50)),
    idleGetP99Ms: r1(pct(idle, 99)),
    loadedGetP50Ms: r1(pct(busy, 50)),
    loadedGetP99Ms: r1(pct(busy, 99)),
    loadedGetMaxMs: r1(Math.max(...busy)),
    documentCheckMs: times.documentMs,
    documentCheckP99Ms: times.documentP99Ms,
    faceMatchCheckMs: times.faceMatchMs,
    livenessCheckMs: times.livenessMs,
  };
  ctx.log(
    `  live sessions (document front + selfie; document, face_match, liveness):\n` +
      `${describe('one at a time', oneAtATime, single)}\n` +
      `${describe(`${inFlight} in flight`, busyRun, sessions)}\n` +
      `  authenticated GET /v1/merchant at ${PROBE_RATE}/s: idle p50 ${details.idleGetP50Ms} ms, p99 ${details.idleGetP99Ms} ms; ` +
      `during the busy sessions p50 ${details.loadedGetP50Ms} ms, p99 ${details.loadedGetP99Ms} ms, max ${details.loadedGetMaxMs} ms\n` +
      `  engine time per check (one at a time, warm): document p50 ${details.documentCheckMs} ms / p99 ${details.documentCheckP99Ms} ms (${images.length} pages), face_match ${details.faceMatchCheckMs} ms, liveness ${details.livenessCheckMs} ms`,
  );
  return {
    requestsPerSecond: r1(busy.length / sessions.seconds),
    latencyP50Ms: details.loadedGetP50Ms,
    latencyP99Ms: details.loadedGetP99Ms,
    latencyMaxMs: details.loadedGetMaxMs,
    requests: busy.length,
    durationSeconds: r1(sessions.seconds),
    connections: inFlight,
    statusCodes: { '200': busy.length },
    details,
  };
}

export const engineScenarios: Scenario[] = [
  {
    name: 'engine-sessions',
    label: `GET /v1/merchant at ${PROBE_RATE}/s during live engine sessions`,
    run: runEngineSessions,
  },
];
