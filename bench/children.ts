import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';

/** A server the bench started; its output goes to a file, not a pipe, so a slow reader never throttles it. */
export interface Child {
  name: string;
  process: ChildProcess;
  logFile: string;
  /** Settles when the process has exited, however that happened. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
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

export function startChild(
  name: string,
  script: string,
  options: { cwd: string; env: NodeJS.ProcessEnv; logFile: string; nodeFlags?: string[] },
): Child {
  const out = fs.openSync(options.logFile, 'w');
  const child = spawn(process.execPath, [...(options.nodeFlags ?? []), script], {
    cwd: options.cwd,
    env: options.env,
    stdio: ['ignore', out, out],
  });
  fs.closeSync(out); // the child holds its own descriptor
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
    child.once('error', () => resolve({ code: null, signal: null }));
  });
  return { name, process: child, logFile: options.logFile, exited };
}

/** Last lines of a child's log, for error messages that explain a failed start. */
export function tail(file: string, lines = 20): string {
  try {
    return fs.readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

function getStatus(url: string): Promise<number> {
  return new Promise((resolve) => {
    const req = http.get(url, { agent: false, timeout: 2000 }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(0));
  });
}

/**
 * Polls until `url` answers 200. A first start initialises PostgreSQL (tens of seconds), so the
 * timeout is generous; a child that dies meanwhile fails at once instead of waiting it out.
 */
export async function waitForOk(child: Child, url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let died: string | undefined;
  void child.exited.then(({ code, signal }) => {
    died = `exited with ${signal ?? `code ${code}`}`;
  });
  while (Date.now() < deadline) {
    if (died) break;
    if ((await getStatus(url)) === 200) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  const why = died ?? `did not answer 200 within ${Math.round(timeoutMs / 1000)} s`;
  throw new Error(`${child.name} ${why} (GET ${url}); last lines of ${child.logFile}:\n${tail(child.logFile)}`);
}

/**
 * SIGTERM lets the service close HTTP, jobs, store and database in order; SIGKILL after the
 * grace period is the last resort (it can leave the embedded PostgreSQL running).
 */
export async function stopChild(child: Child, graceMs = 20_000): Promise<'stopped' | 'killed' | 'already exited'> {
  const proc = child.process;
  if (proc.exitCode !== null || proc.signalCode !== null) return 'already exited';
  proc.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<true>((resolve) => {
    timer = setTimeout(() => resolve(true), graceMs);
  });
  const outcome = await Promise.race([child.exited.then(() => false as const), timedOut]);
  clearTimeout(timer);
  if (!outcome) return 'stopped';
  proc.kill('SIGKILL');
  await child.exited;
  return 'killed';
}

/** Runs a node script to completion, returning its stdout; stderr only matters when it fails. */
export async function runNode(
  script: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number },
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], {
      cwd: options.cwd,
      env: options.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(stdout);
      else
        reject(
          new Error(
            `node ${script} ${args.join(' ')} ${signal ? `killed (${signal})` : `exited with code ${code}`}:\n${stderr.trim() || stdout.trim()}`,
          ),
        );
    });
  });
}
