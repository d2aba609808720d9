import fs from 'node:fs';
import os from 'node:os';

/**
 * Where the service's CPU goes while the engine bench runs, from /proc (Linux; null elsewhere):
 * its threads by kind, its database's processes, and the whole machine. Per thread it also
 * reads schedstat's second field, the time the thread was ready to run but waited for a CPU:
 * engine threads that wait most of the time are starved of CPU, not short of work.
 */

/** Seconds on a CPU, and seconds ready to run but waiting for one. */
export interface ThreadTime {
  cpu: number;
  waiting: number;
}

export interface CpuSnapshot {
  /** The service process, all its threads (those that ended too). */
  service: number;
  /** The main thread: HTTP, the job runner, the store (embedded S3), the ORM. */
  main: ThreadTime;
  /** Threads running at a lower priority than the main thread: the pool's threads and the OCR workers they start. */
  engine: ThreadTime;
  /** The service's child processes: the embedded PostgreSQL (its server and backends). */
  database: number;
  /** This process, the bench's client (the sessions' uploads and polls, the probe), which shares the service's scheduling group. */
  client: number;
  /** The machine: seconds of all CPUs busy (any process) and elapsed CPU seconds. */
  machineBusy: number;
  machineTotal: number;
}

const TICK = 100; // clock ticks a second (USER_HZ) on Linux

function statFields(path: string): string[] {
  const stat = fs.readFileSync(path, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** utime + stime (fields 14 and 15 of stat) in seconds. */
const cpuOf = (fields: string[]) => (Number(fields[11]) + Number(fields[12])) / TICK;

/** The service: this process's child running dist/server.js. */
function servicePid(): number | null {
  for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      if (Number(statFields(`/proc/${pid}/stat`)[1]) !== process.pid) continue;
      const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      if (cmdline.some((arg) => arg.endsWith('/dist/server.js'))) return Number(pid);
    } catch {
      // the process ended meanwhile
    }
  }
  return null;
}

function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const parent = Number(statFields(`/proc/${pid}/stat`)[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(pid)]);
    } catch {
      // ended meanwhile
    }
  }
  const out: number[] = [];
  const walk = (pid: number) => {
    for (const child of children.get(pid) ?? []) {
      out.push(child);
      walk(child);
    }
  };
  walk(root);
  return out;
}

function machine(): { busy: number; total: number } {
  const cpu = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const total = cpu.slice(0, 8).reduce((a, b) => a + b, 0);
  // idle and iowait are fields 4 and 5
  return { busy: (total - cpu[3]! - cpu[4]!) / TICK, total: total / TICK };
}

export function cpuSnapshot(): CpuSnapshot | null {
  try {
    const pid = servicePid();
    if (pid === null) return null;
    const nice = Number(statFields(`/proc/${pid}/stat`)[16]);
    const main: ThreadTime = { cpu: 0, waiting: 0 };
    const engine: ThreadTime = { cpu: 0, waiting: 0 };
    for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
      try {
        const fields = statFields(`/proc/${pid}/task/${tid}/stat`);
        const waiting = Number(fs.readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[1]) / 1e9;
        const kind = Number(tid) === pid ? main : Number(fields[16]) > nice ? engine : null;
        if (!kind) continue;
        kind.cpu += cpuOf(fields);
        kind.waiting += waiting;
      } catch {
        // the thread ended meanwhile
      }
    }
    let database = 0;
    for (const child of descendants(pid)) {
      try {
        database += cpuOf(statFields(`/proc/${child}/stat`));
      } catch {
        // ended meanwhile
      }
    }
    const m = machine();
    const own = process.cpuUsage();
    return {
      client: (own.user + own.system) / 1e6,
      service: cpuOf(statFields(`/proc/${pid}/stat`)),
      main,
      engine,
      database,
      machineBusy: m.busy,
      machineTotal: m.total,
    };
  } catch {
    return null; // not Linux
  }
}

/** What a mode used between two snapshots, per session and per second of the mode. */
export interface CpuUse {
  /** Service CPU seconds a session, and its split: main thread, engine threads, the rest (V8's GC and compiler threads, libuv, libvips). */
  perSession: { service: number; main: number; engine: number; other: number; database: number };
  /** Cores the service used on average over the mode, and its database. */
  serviceCores: number;
  databaseCores: number;
  /** Engine threads: cores they ran on, and how many on average were ready but waiting for a CPU. */
  engineCores: number;
  engineWaiting: number;
  /** Cores the bench's client used (same session, so the same scheduling group as the service). */
  clientCores: number;
  /** Cores the whole machine (every process) kept busy, of os.cpus().length. */
  machineCores: number;
}

/** The service's CPU seconds between two snapshots (null without both). */
export const serviceSeconds = (before: CpuSnapshot | null, after: CpuSnapshot | null): number | null =>
  before && after ? after.service - before.service : null;

const r2 = (n: number) => Math.round(n * 100) / 100;

export function cpuUse(before: CpuSnapshot | null, after: CpuSnapshot | null, sessions: number): CpuUse | null {
  if (!before || !after || sessions === 0) return null;
  const elapsed = (after.machineTotal - before.machineTotal) / os.cpus().length;
  if (elapsed <= 0) return null;
  const service = after.service - before.service;
  const main = after.main.cpu - before.main.cpu;
  const engine = after.engine.cpu - before.engine.cpu;
  const database = after.database - before.database;
  return {
    perSession: {
      service: r2(service / sessions),
      main: r2(main / sessions),
      engine: r2(engine / sessions),
      other: r2((service - main - engine) / sessions),
      database: r2(database / sessions),
    },
    serviceCores: r2(service / elapsed),
    databaseCores: r2(database / elapsed),
    engineCores: r2(engine / elapsed),
    engineWaiting: r2((after.engine.waiting - before.engine.waiting) / elapsed),
    clientCores: r2((after.client - before.client) / elapsed),
    machineCores: r2((after.machineBusy - before.machineBusy) / elapsed),
  };
}
