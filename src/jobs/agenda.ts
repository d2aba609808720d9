import { Agenda } from 'agenda';
import { MongoBackend } from '@agendajs/mongo-backend';
import { PostgresBackend, type PostgresJobRepository } from '@agendajs/postgres-backend';
import type { Config } from '../config.js';
import type { Runtime } from '../runtime.js';
import { JOBS } from './index.js';
import type { JobDefinition } from './job.js';
import type { Logger } from '../logger.js';
import type { PoolClient } from 'pg';

const DEFAULT_CONCURRENCY = 5;

export interface JobsOptions {
  /** Poll interval; LISTEN/NOTIFY wakes Postgres workers sooner. */
  processEvery?: string | number;
  /**
   * Upper bound of every job's lock lifetime: how long a crashed worker's job waits before
   * another worker takes it. Running jobs keep their lock fresh with a heartbeat.
   */
  lockLifetimeMs?: number;
}

/**
 * The one module that owns Agenda. The job store is PostgreSQL (same database, table
 * agenda_jobs) by default and MongoDB when MONGODB_URL is set. Any number of processes may
 * run workers against the same store; Agenda's row locks share the work.
 */
export class Jobs {
  readonly agenda: Agenda;
  private readonly backend: PostgresBackend | MongoBackend;
  private started = false;
  private stopping = false;
  private readonly lockLifetimeMs: number;
  /** Each defined kind's concurrency; their sum is the process-wide limit. */
  private readonly slots = new Map<string, number>();
  /** Windows this process already scheduled a coalesced job for (see scheduleCoalesced). */
  private readonly coalesced = new Map<string, { at: number; write: Promise<void> }>();

  constructor(
    config: Config,
    databaseUrl: string,
    private readonly logger: Logger,
    options: JobsOptions = {},
  ) {
    // Agenda re-checks a running job every half lock lifetime on a timer that outlives the job
    // (and keeps a stopped process alive until it fires), so lifetimes stay short; the
    // heartbeat below, not a long lock, is what keeps a slow job from being cancelled.
    this.lockLifetimeMs = options.lockLifetimeMs ?? 30_000;
    const backend = (this.backend =
      config.jobsBackend === 'mongodb'
        ? new MongoBackend({ address: config.mongodbUrl!, collection: 'agendaJobs' })
        : new PostgresBackend({ connectionString: databaseUrl, tableName: 'agenda_jobs', channelName: 'agenda_jobs' }));
    // An idle pooled connection that the database ends (a restart, or Ctrl-C reaching the embedded
    // cluster in the same process group before the server has stopped) is an 'error' event on
    // the pool; without a listener it would crash the process instead of the orderly stop.
    if (backend instanceof PostgresBackend) {
      (backend.repository as PostgresJobRepository)
        .getPool()
        .on('error', (error) => logger.warn({ err: error }, 'jobs: an idle database connection was closed'));
      schemaOneAtATime(backend.repository as PostgresJobRepository);
    }
    // The LISTEN connection reports a lost database as an 'error' event; without a listener it would crash the process.
    (
      backend.notificationChannel as unknown as { on?: (e: string, l: (error: Error) => void) => void } | undefined
    )?.on?.('error', (error) => logger.error({ err: error }, 'jobs: notification channel failed'));
    this.agenda = new Agenda({
      backend,
      processEvery: options.processEvery ?? '1 second',
      defaultLockLifetime: this.lockLifetimeMs,
    });
    this.agenda.on('error', (error: Error) => reportAgendaError(logger, error));
  }

  /**
   * Defines every job's handler; a process must do this before it enqueues or works. Each kind
   * gets its own slots: the process-wide limit is the sum of the kinds' concurrencies (Agenda's
   * default of 20 in all let 20 delivery retries to a dead endpoint hold every slot while check
   * runs waited). A kind with a `lockLimit` locks at most that many ahead (Agenda's default
   * locks a whole due backlog, one statement per job, on every scan).
   */
  register(runtime: Runtime, jobs: JobDefinition<any>[] = JOBS): void {
    for (const job of jobs) this.slots.set(job.name, job.concurrency ?? DEFAULT_CONCURRENCY);
    this.agenda.maxConcurrency([...this.slots.values()].reduce((sum, n) => sum + n, 0));
    const processEveryMs = (this.agenda.attrs as { processEvery: number }).processEvery;
    for (const job of jobs) {
      const lockLifetime = Math.min(job.lockLifetimeMs ?? this.lockLifetimeMs, this.lockLifetimeMs);
      const concurrency = job.concurrency ?? DEFAULT_CONCURRENCY;
      this.agenda.define(
        job.name,
        async (agendaJob) => {
          const stopHeartbeat = heartbeat(agendaJob, lockLifetime, runtime.logger);
          try {
            await job.handler(runtime, (agendaJob.attrs.data ?? {}) as never, agendaJob as never);
          } finally {
            await stopHeartbeat();
            await clearOfLockCheck(agendaJob.attrs.lastRunAt, lockCheckEvery(processEveryMs, lockLifetime));
          }
        },
        {
          concurrency,
          lockLifetime,
          ...(job.lockLimit ? { lockLimit: job.lockLimit } : {}),
          ...(job.priority ? { priority: job.priority } : {}),
        },
      );
    }
  }

  /** Starts working jobs in this process and schedules the recurring ones. */
  async start(jobs: JobDefinition<any>[] = JOBS): Promise<void> {
    await this.agenda.start();
    this.started = true;
    for (const job of jobs) {
      if (job.every) await this.agenda.every(job.every, job.name);
    }
  }

  async now<Data>(name: string, data: Data): Promise<void> {
    await this.agenda.now(name, data);
  }

  async schedule<Data>(when: Date, name: string, data: Data): Promise<void> {
    await this.agenda.schedule(when, name, data);
  }

  /** Removes the jobs `name` whose data contains `data` (one statement), running or not; returns how many. */
  async cancel(name: string, data: Record<string, unknown>): Promise<number> {
    return this.agenda.cancel({ name, data });
  }

  /**
   * One job `name` per `windowMs` window, run at the window's end: callers that each need
   * "a run at or soon after t" share one store write per window instead of one each. A
   * failed write is forgotten so the next caller in the window tries again.
   */
  scheduleCoalesced(when: Date, name: string, windowMs: number): Promise<void> {
    const at = Math.ceil(when.getTime() / windowMs) * windowMs;
    const key = `${name}@${at}`;
    const pending = this.coalesced.get(key);
    if (pending) return pending.write;
    const write = this.schedule(new Date(at), name, { at: new Date(at).toISOString() }).catch((error: Error) => {
      this.coalesced.delete(key);
      throw error;
    });
    this.coalesced.set(key, { at, write });
    // Windows are added in time order (one TTL), so the past ones sit at the front of the map.
    for (const [old, entry] of this.coalesced) {
      if (entry.at >= Date.now() - windowMs) break;
      this.coalesced.delete(old);
    }
    return write;
  }

  /** True once stop() began: long-running jobs (the outbox dispatcher) end their run. */
  get isStopping(): boolean {
    return this.stopping;
  }

  /** Lets running jobs finish (bounded), then releases locks and closes the store connection. */
  async stop(drainTimeoutMs = 10_000): Promise<void> {
    this.stopping = true;
    if (this.started) {
      this.started = false;
      const result = await this.agenda.drain({ timeout: drainTimeoutMs, closeConnection: true });
      if (result.timedOut)
        this.logger.warn(
          `jobs: ${result.running} job(s) still running at shutdown; their locks expire and another worker retries them`,
        );
    } else {
      // Agenda connects its store on construction; wait for that before closing it.
      await this.agenda.ready.catch(() => undefined);
      await this.backend.disconnect();
    }
  }
}

/** Advisory lock key under which processes create the job table (`hashtext('idv:agenda_jobs schema')`). */
const SCHEMA_LOCK_SQL = `select pg_advisory_lock(hashtext('idv:agenda_jobs schema'))`;
const SCHEMA_UNLOCK_SQL = `select pg_advisory_unlock(hashtext('idv:agenda_jobs schema'))`;

/**
 * Agenda's Postgres backend creates its table, indexes, function and trigger on every connect
 * (`CREATE OR REPLACE FUNCTION`, `DROP`/`CREATE TRIGGER`); two processes connecting at once
 * (workers started together, parallel `cli bootstrap` runs) make one of them fail with
 * "tuple concurrently updated". Each process now does it under one advisory lock, in turn.
 */
function schemaOneAtATime(repository: PostgresJobRepository): void {
  const target = repository as unknown as { createSchema(client: PoolClient): Promise<void> };
  const createSchema = target.createSchema.bind(repository);
  target.createSchema = async (client) => {
    await client.query(SCHEMA_LOCK_SQL);
    try {
      await createSchema(client);
    } finally {
      await client.query(SCHEMA_UNLOCK_SQL);
    }
  };
}

/** How often Agenda 6 checks a running job's lock (JobProcessor.runOrRetry: every half lock lifetime, at least half processEvery). */
export const lockCheckEvery = (processEveryMs: number, lockLifetimeMs: number): number =>
  Math.max(processEveryMs / 2, lockLifetimeMs / 2);

/**
 * Agenda 6 (JobProcessor.runOrRetry) checks a running job's lock every `checkEveryMs` from the
 * moment the run starts (`lastRunAt`); when the handler returns, Agenda clears the job's
 * lockedAt and only then saves the finish. A check landing between the two (the save is slow
 * when the machine is busy) "cancels" the finished run with an error-level "no lockedAt date
 * found". The dispatcher's one-minute window ended exactly on a check (a multiple of 5 s), so
 * it met this often. A run ending within the last part of an interval therefore returns just
 * after the next check instead, leaving the finish a whole interval (less the guard) to be saved.
 */
export async function clearOfLockCheck(startedAt: Date | undefined, checkEveryMs: number): Promise<void> {
  if (!startedAt || checkEveryMs <= 0) return;
  const guard = Math.min(checkEveryMs / 2, 2_000);
  const untilCheck = checkEveryMs - ((Date.now() - startedAt.getTime()) % checkEveryMs);
  if (untilCheck < guard) await new Promise((resolve) => setTimeout(resolve, untilCheck + 50));
}

/**
 * Agenda's 'error' events, each said for what it is. "no lockedAt date found" can only come
 * from the race above (the in-memory lock is cleared by Agenda's own finish, nowhere else): the
 * run had completed and nothing was lost, so it is a warning that says so. A lock that lapsed
 * while a job ran ("took more than") is a real error: another worker may run it again.
 */
export function reportAgendaError(logger: Logger, error: Error): void {
  const finishRace = /^execution of '([^']+)' canceled, no lockedAt date found/.exec(error.message);
  if (finishRace) {
    logger.warn(
      `jobs: ${finishRace[1]}: Agenda's lock check ran while the run's finish was being saved (the machine is busy); the run had completed, nothing was cancelled or lost`,
    );
    return;
  }
  logger.error({ err: error }, 'jobs: store error');
}

/**
 * Keeps a running job's lock fresh (touch every quarter lock lifetime) so Agenda never
 * cancels, or hands to another worker, a job whose process is alive but slow; the lock
 * lifetime then only bounds how long a crashed worker's job waits to be picked up again.
 */
function heartbeat(job: { touch(): Promise<void> }, lockLifetimeMs: number, logger: Logger): () => Promise<void> {
  let stopped = false;
  let inFlight: Promise<void> = Promise.resolve();
  const timer = setInterval(
    () => {
      if (stopped) return;
      inFlight = job.touch().catch((error: Error) => {
        if (!stopped) logger.warn({ err: error }, 'jobs: heartbeat failed');
      });
    },
    Math.max(50, Math.floor(lockLifetimeMs / 4)),
  );
  timer.unref();
  // A touch still in flight must land before Agenda records the run as finished and unlocks it.
  return async () => {
    stopped = true;
    clearInterval(timer);
    await inFlight;
  };
}
