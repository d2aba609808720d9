import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, runNode, startChild, stopChild, waitForOk, type Child } from './children.js';
import { closePools } from './database.js';
import { measure, measureInterleaved, type LoadSettings, type Measurement } from './load.js';
import { compare, formatReport, machineInfo, writeResults, type BenchResults } from './report.js';
import { comparisons, interleaved, scenarios, type BenchContext, type Scenario } from './scenarios.js';

/**
 * `npm run bench`: the service (embedded PostgreSQL and store, in its own data folder), a bare
 * node:http server and a one-middleware Koa app as child processes, autocannon in this
 * process, one scenario at a time.
 *
 * Environment:
 *   BENCH_SECONDS=8        measured seconds per scenario (after a 2 s warm-up)
 *   BENCH_CONNECTIONS=20   concurrent connections (and pg clients for the ceilings)
 *   BENCH_ROUNDS=4         turns the interleaved scenarios (bare, koa, healthz, merchant) take:
 *                          each measures BENCH_SECONDS / BENCH_ROUNDS seconds per turn.
 *                          Shorter turns are not better: 16 turns of 0.5 s measured
 *                          healthz/bare 0.05 lower, each turn's 20 new connections and the
 *                          previous turn's teardown weighing on the slower server
 *   BENCH_ONLY=a,b         run only these scenarios, by name (see scenarios.ts), in the usual
 *                          order; a comparison is reported only when both its scenarios ran.
 *                          e.g. BENCH_ONLY=verifications-create,verifications-create-sql
 *   BENCH_TAG=foundation   results go to .data/bench/results-<tag>.json
 */
const repo = fileURLToPath(new URL('../../', import.meta.url));
const dataDir = path.join(repo, '.data', 'bench');
/** The service as `npm start` runs it (the production build); the bench itself is built apart, into dist-bench/. */
const dist = path.join(repo, 'dist');
/** The bench's own compiled scripts (the baseline servers), beside this file. */
const benchDir = fileURLToPath(new URL('.', import.meta.url));
const log = (line: string) => console.log(line);
/**
 * The node flags `npm start` runs the server with (package.json), so the bench measures the
 * service as operators run it: a 64 MB young generation keeps short-lived per-request
 * objects out of frequent scavenges.
 */
const SERVICE_NODE_FLAGS = ['--max-semi-space-size=64'];

function positiveInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return value;
}

/**
 * The developer's shell may point at real services; the bench must only ever see its own
 * embedded ones, so those settings are dropped rather than inherited (NODE_OPTIONS too: an
 * inherited --inspect or loader would distort the figures).
 */
function serviceEnv(port: number): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of [
    'DATABASE_URL',
    'S3_ENDPOINT',
    'MONGODB_URL',
    'JOBS_BACKEND',
    'PUBLIC_URL',
    'RUN_JOBS',
    'NODE_OPTIONS',
  ])
    delete env[name];
  return {
    ...env,
    DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    PORT: String(port),
    // The default 100/min budget would turn the authenticated scenario into a 429 benchmark.
    RATE_LIMIT_PER_MINUTE: '1000000000',
    // Likewise the members' GraphQL budget (600/min) for the GraphQL scenarios.
    GRAPHQL_RATE_LIMIT_PER_MINUTE: '1000000000',
    // The webhook scenario's receiver listens on 127.0.0.1, which the SSRF guard refuses by default.
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    LOG_LEVEL: 'error',
  };
}

/** BENCH_ONLY as a subset of `scenarios`, in their order; an unknown name fails before anything starts. */
function selectScenarios(raw: string | undefined): Scenario[] {
  if (raw === undefined || raw.trim() === '') return scenarios;
  const wanted = new Set(
    raw
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  );
  const unknown = [...wanted].filter((name) => !scenarios.some((s) => s.name === name));
  if (unknown.length)
    throw new Error(
      `BENCH_ONLY names unknown scenarios: ${unknown.join(', ')}; known: ${scenarios.map((s) => s.name).join(', ')}`,
    );
  return scenarios.filter((s) => wanted.has(s.name));
}

interface Bootstrap {
  merchantId: string;
  sandboxKey: string;
  liveKey: string;
  memberToken: string;
  /** The owner's sign-in, for the browser scenarios (console-pages.ts). */
  ownerEmail: string;
  ownerPassword: string;
}

/** stdout should be pure JSON, but tolerate stray lines before it rather than fail on them. */
function parseBootstrap(stdout: string): Bootstrap {
  const start = stdout.search(/^\{/m);
  let parsed: {
    merchant?: { id?: string };
    member?: { session_token?: string; email?: string; password?: string };
    keys?: { sandbox?: { secret_key?: string }; live?: { secret_key?: string } };
  };
  try {
    parsed = JSON.parse(start >= 0 ? stdout.slice(start) : stdout);
  } catch {
    throw new Error(`cli bootstrap --json printed no JSON:\n${stdout.slice(0, 2000)}`);
  }
  const sandboxKey = parsed.keys?.sandbox?.secret_key;
  if (!sandboxKey) throw new Error(`cli bootstrap --json has no keys.sandbox.secret_key:\n${stdout.slice(0, 2000)}`);
  const memberToken = parsed.member?.session_token;
  if (!memberToken) throw new Error(`cli bootstrap --json has no member.session_token:\n${stdout.slice(0, 2000)}`);
  return {
    merchantId: parsed.merchant?.id ?? '',
    sandboxKey,
    liveKey: parsed.keys?.live?.secret_key ?? '',
    memberToken,
    ownerEmail: parsed.member?.email ?? '',
    ownerPassword: parsed.member?.password ?? '',
  };
}

const children: Child[] = [];
let stopping: Promise<void> | undefined;

/** Idempotent: reached from the normal path, from errors and from Ctrl-C. Newest child first. */
function stopChildren(): Promise<void> {
  stopping ??= (async () => {
    for (const child of [...children].reverse()) {
      if (child.name === 'service') log('stopping service (SIGTERM, ordered shutdown)...');
      const how = await stopChild(child);
      if (how === 'killed')
        console.error(`warning: ${child.name} ignored SIGTERM for 20 s and was killed; see ${child.logFile}`);
    }
  })();
  return stopping;
}

/** A baseline server as a child process (its own event loop, never the load generator's); resolves with its URL. */
async function startBaseline(name: string, script: string, nodeFlags: string[]): Promise<string> {
  const port = await freePort();
  const child = startChild(name, path.join(benchDir, script), {
    cwd: repo,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1' },
    logFile: path.join(dataDir, `${name}.log`),
    nodeFlags,
  });
  children.push(child);
  const url = `http://127.0.0.1:${port}`;
  await waitForOk(child, `${url}/`, 15_000);
  return url;
}

async function main(): Promise<void> {
  const tag = process.env.BENCH_TAG || 'foundation';
  const settings: LoadSettings = {
    seconds: positiveInt('BENCH_SECONDS', 8),
    warmupSeconds: 2,
    connections: positiveInt('BENCH_CONNECTIONS', 20),
  };
  const selected = selectScenarios(process.env.BENCH_ONLY);
  const rounds = positiveInt('BENCH_ROUNDS', 4);
  for (const script of ['server.js', 'cli.js']) {
    if (!fs.existsSync(path.join(dist, script))) throw new Error(`dist/${script} is missing; run npm run build`);
  }
  fs.mkdirSync(dataDir, { recursive: true });
  // Sampled before our own children add load; the service competes with anything else running.
  const loadAverageAtStart = Math.round(os.loadavg()[0]! * 100) / 100;
  if (loadAverageAtStart > os.cpus().length / 2) {
    log(`warning: load average is ${loadAverageAtStart} on ${os.cpus().length} CPUs; other work will skew the figures`);
  }

  log(`starting service (data in ${path.relative(repo, dataDir)}; the first start initialises PostgreSQL)...`);
  const servicePort = await freePort();
  const env = serviceEnv(servicePort);
  const service = startChild('service', path.join(dist, 'server.js'), {
    cwd: repo,
    env,
    logFile: path.join(dataDir, 'service.log'),
    nodeFlags: SERVICE_NODE_FLAGS,
  });
  children.push(service);
  const serviceUrl = `http://127.0.0.1:${servicePort}`;
  await waitForOk(service, `${serviceUrl}/healthz`, 180_000);
  log(`service up on ${serviceUrl}`);

  log('creating an account (cli bootstrap --json)...');
  // Same env, so the CLI attaches to the database this server started under DATA_DIR.
  const bootstrap = async (name?: string) =>
    parseBootstrap(
      await runNode(path.join(dist, 'cli.js'), ['bootstrap', '--json', ...(name ? ['--name', name] : [])], {
        cwd: repo,
        env,
        timeoutMs: 120_000,
      }),
    );
  const { merchantId, sandboxKey, memberToken } = await bootstrap();
  log(`account ${merchantId || '(id not reported)'} ready`);

  log('starting the baselines (bare node:http, one-middleware Koa)...');
  const bareUrl = await startBaseline('bare', 'bare-server.js', []);
  const koaUrl = await startBaseline('koa', 'koa-server.js', SERVICE_NODE_FLAGS);

  /** A further service process attached to the same data folder (database and store), e.g. with REQUEST_LOG=false. */
  const startService = async (name: string, extra: Record<string, string>): Promise<string> => {
    const port = await freePort();
    const child = startChild(name, path.join(dist, 'server.js'), {
      cwd: repo,
      env: { ...serviceEnv(port), ...extra },
      logFile: path.join(dataDir, `${name}.log`),
      nodeFlags: SERVICE_NODE_FLAGS,
    });
    children.push(child);
    const url = `http://127.0.0.1:${port}`;
    await waitForOk(child, `${url}/healthz`, 60_000);
    log(`  ${name} up on ${url}`);
    return url;
  };

  const ctx: BenchContext = {
    serviceUrl,
    startService,
    bareUrl,
    koaUrl,
    sandboxKey,
    memberToken,
    merchantId,
    bootstrap,
    settings,
    measure: (target, overrides) => measure(target, { ...settings, ...overrides }),
    log,
  };
  const measured: Record<string, Measurement> = {};
  const labelled: BenchResults['scenarios'] = {};
  if (selected.length < scenarios.length) log(`BENCH_ONLY: ${selected.map((s) => s.name).join(', ')}`);
  const record = (scenario: Scenario, result: Measurement) => {
    measured[scenario.name] = result;
    labelled[scenario.name] = { label: scenario.label, ...result };
    log(`  ${scenario.label}: ${result.requestsPerSecond.toFixed(0)} req/s, p99 ${result.latencyP99Ms.toFixed(1)} ms`);
  };
  const inTurns = selected.filter((s) => s.target && interleaved.includes(s.name));
  if (inTurns.length > 1) {
    log(
      `measuring ${inTurns.map((s) => s.name).join(', ')} in ${rounds} turns ` +
        `(${settings.warmupSeconds} s warm-up each, then ${(settings.seconds / rounds).toFixed(1)} s per turn, ${settings.seconds} s each in all)...`,
    );
    const results = await measureInterleaved(
      inTurns.map((s) => s.target!(ctx)),
      settings,
      rounds,
    );
    inTurns.forEach((scenario, i) => record(scenario, results[i]!));
  }
  for (const scenario of selected) {
    if (measured[scenario.name]) continue;
    log(`measuring ${scenario.label} (${settings.warmupSeconds} s warm-up + ${settings.seconds} s)...`);
    record(scenario, await scenario.run(ctx));
  }

  const results: BenchResults = {
    finishedAt: new Date().toISOString(),
    machine: machineInfo(loadAverageAtStart),
    settings,
    scenarios: labelled,
    comparisons: compare(comparisons, measured),
  };
  log(formatReport(results, selected));
  const file = path.join(dataDir, `results-${tag}.json`);
  writeResults(file, results);
  log(`\nresults written to ${path.relative(repo, file)}`);
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    console.error(`\n${signal}: stopping children...`);
    void stopChildren().finally(() => process.exit(1));
  });
}

let exitCode = 0;
try {
  await main();
} catch (error) {
  console.error(`\nbench failed: ${(error as Error).message}`);
  exitCode = 1;
} finally {
  // A scenario that failed midway may have left pools open: close them before the database stops under them.
  await closePools();
  await stopChildren();
}
process.exit(exitCode);
