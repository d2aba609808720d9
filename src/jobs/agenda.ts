import { Agenda } from 'agenda';
import { MongoBackend } from '@agendajs/mongo-backend';
import { PostgresBackend } from '@agendajs/postgres-backend';
import type { Config } from '../config.js';
import type { Runtime } from '../runtime.js';
import { JOBS } from './index.js';
import type { JobDefinition } from './job.js';

export interface JobsOptions {
  /** Poll interval; LISTEN/NOTIFY wakes Postgres workers sooner. */
  processEvery?: string | number;
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
  private readonly lockLifetimeMs: number;

  constructor(config: Config, databaseUrl: string, options: JobsOptions = {}) {
    // A running job is re-checked every half lock lifetime (Agenda), and that timer outlives
    // the job; tests use a short lifetime so nothing lingers after stop().
    this.lockLifetimeMs = options.lockLifetimeMs ?? 10 * 60 * 1000;
    const backend = (this.backend =
      config.jobsBackend === 'mongodb'
        ? new MongoBackend({ address: config.mongodbUrl!, collection: 'agendaJobs' })
        : new PostgresBackend({ connectionString: databaseUrl, tableName: 'agenda_jobs', channelName: 'agenda_jobs' }));
    // The LISTEN connection reports a lost database as an 'error' event; without a listener it would crash the process.
    (backend.notificationChannel as unknown as { on?: (e: string, l: (error: Error) => void) => void } | undefined)?.on?.('error', (error) =>
      console.error('jobs: notification channel:', error.message),
    );
    this.agenda = new Agenda({
      backend,
      processEvery: options.processEvery ?? '5 seconds',
      defaultLockLifetime: this.lockLifetimeMs,
    });
    this.agenda.on('error', (error: Error) => console.error('jobs: store error:', error.message));
  }

  /** Defines every job's handler; a process must do this before it enqueues or works. */
  register(runtime: Runtime, jobs: JobDefinition<any>[] = JOBS): void {
    for (const job of jobs) {
      this.agenda.define(
        job.name,
        async (agendaJob) => {
          await job.handler(runtime, (agendaJob.attrs.data ?? {}) as never, agendaJob as never);
        },
        { concurrency: job.concurrency ?? 5, lockLifetime: job.lockLifetimeMs ?? this.lockLifetimeMs },
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

  /** Lets running jobs finish (bounded), then releases locks and closes the store connection. */
  async stop(drainTimeoutMs = 10_000): Promise<void> {
    if (this.started) {
      this.started = false;
      const result = await this.agenda.drain({ timeout: drainTimeoutMs, closeConnection: true });
      if (result.timedOut) console.error(`jobs: ${result.running} job(s) still running at shutdown; their locks expire and another worker retries them`);
    } else {
      // Agenda connects its store on construction; wait for that before closing it.
      await this.agenda.ready.catch(() => undefined);
      await this.backend.disconnect();
    }
  }
}
