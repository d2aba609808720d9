import path from 'node:path';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Config } from './config.js';
import { createLogger, type Logger } from './logger.js';
import { startEmbeddedPostgres } from './embedded/postgres.js';
import { embeddedStoreCredentials, startEmbeddedS3 } from './embedded/s3.js';
import { Jobs, type JobsOptions } from './jobs/agenda.js';
import { migrate, openOrm } from './orm.js';
import { Storage } from './storage/s3.js';
import { EnginePool } from './engine/pool/index.js';
import { loadMasterKey, Vault } from './services/shared/index.js';
import { KeyCache, MerchantCache, SignInThrottle } from './services/access/index.js';
import { closeOutboxSignal, closeSender } from './services/webhooks/index.js';
import { closeRequestLog } from './services/logs/index.js';
import { warmAmlIndex } from './engine/aml/lists.js';

/**
 * What services create on first use and keep for the process: typed slots on the runtime (no
 * side registries), each filled by the one module that owns it.
 */
export interface ProcessParts {
  /** Applicant outcome emails: SMTP_URL's server, or the log line (services/review). */
  outcomeTransport?: import('./services/review/applicant-notification.service.js').OutcomeTransport;
  /** The hosted page's email codes through SMTP_URL (services/hosted). */
  codeTransport?: import('nodemailer').Transporter;
  /** The batched request-log writer (services/logs). */
  requestLog?: import('./services/logs/request-log.writer.js').RequestLogWriter;
  /** The webhook delivery sender (services/webhooks). */
  sender?: import('./services/webhooks/webhook-sender.js').DeliverySender;
  /** The LISTEN/NOTIFY outbox signal (services/webhooks). */
  outboxSignal?: import('./services/webhooks/outbox-signal.js').OutboxSignal;
}

/** The long-lived parts of one process: configuration, database, store and job queue. */
export interface Runtime {
  config: Config;
  orm: MikroORM;
  storage: Storage;
  jobs: Jobs;
  vault: Vault;
  /** Recently authenticated keys and their reserved rate-limit tokens (this process only). */
  keyCache: KeyCache;
  merchantCache: MerchantCache;
  /** Failed console sign-ins per email and per client address. */
  signInThrottle: SignInThrottle;
  databaseUrl: string;
  /** Migrations this start applied (empty when the schema was current). */
  appliedMigrations: string[];
  /** The checks engine's worker pool (threads start on the first analysis). */
  engine: EnginePool;
  /** The process's pino logger; a request's lines go through its child on ServiceContext.log. */
  logger: Logger;
  /** What services created on first use (see ProcessParts). */
  parts: ProcessParts;
  stop(): Promise<void>;
}

export interface RuntimeOptions {
  /** Default: JSON lines on stdout at config.logLevel. */
  logger?: Logger;
  /** Start Agenda workers in this process (server default: config.runJobs). */
  workJobs?: boolean;
  jobs?: JobsOptions;
  /** Start the store (the CLI needs only the database). */
  storage?: boolean;
}

/**
 * Starts the embedded database and store when no operator ones are configured, applies
 * migrations, and connects the job queue. `stop()` closes everything in reverse order.
 */
export async function startRuntime(config: Config, options: RuntimeOptions = {}): Promise<Runtime> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const stops: [string, () => Promise<void>][] = [];
  const stopAll = async () => {
    for (const [name, stop] of stops.reverse()) {
      await stop().then(
        () => logger.info(`stopped ${name}`),
        (error) => logger.error({ err: error }, `stopping ${name} failed`),
      );
    }
    stops.length = 0;
  };
  try {
    let databaseUrl = config.databaseUrl;
    if (!databaseUrl) {
      const db = await startEmbeddedPostgres(config.dataDir, logger);
      stops.push(['database', db.stop]);
      databaseUrl = db.url;
    }
    let s3Endpoint = config.s3.endpoint;
    let s3Credentials = { accessKeyId: config.s3.accessKeyId, secretAccessKey: config.s3.secretAccessKey };
    if (!s3Endpoint && options.storage !== false) {
      // Signed requests only, with this installation's own key pair (never s3rver's well-known one).
      s3Credentials = embeddedStoreCredentials(s3Credentials, config.dataDir, logger);
      // The hosted page PUTs from the browser: the embedded store answers CORS for the page's origin.
      const store = await startEmbeddedS3(path.join(config.dataDir, 's3'), config.s3.bucket, s3Credentials, 0, [
        new URL(config.publicUrl).origin,
      ]);
      stops.push(['store', store.stop]);
      s3Endpoint = store.endpoint;
    }
    const orm = await openOrm(databaseUrl);
    stops.push(['database connections', () => orm.close(true)]);
    const applied = await migrate(orm);
    if (applied.length) logger.info({ migrations: applied }, 'applied migrations');

    const storage = new Storage({ ...config.s3, ...s3Credentials, endpoint: s3Endpoint ?? 'http://127.0.0.1:1' });
    stops.push(['store client', async () => storage.destroy()]);
    if (options.storage !== false) await storage.ensureBucket();

    const jobs = new Jobs(config, databaseUrl, logger, options.jobs);
    const vault = new Vault(loadMasterKey(config.identityEncryptionKey, config.dataDir, logger));
    const engine = new EnginePool({ ...config.engine, logger });
    stops.push(['engine pool', () => engine.close()]);
    const runtime: Runtime = {
      config,
      orm,
      storage,
      jobs,
      vault,
      engine,
      keyCache: new KeyCache(),
      merchantCache: new MerchantCache(),
      signInThrottle: new SignInThrottle(),
      databaseUrl,
      appliedMigrations: applied,
      logger,
      parts: {},
      stop: stopAll,
    };
    jobs.register(runtime);
    // Runs after the HTTP server stopped, before the database connections close: the last calls are written.
    stops.push(['request log', () => closeRequestLog(runtime)]);
    // Runs after the jobs stopped (stops run in reverse): first attempts in flight finish or are left to their leases.
    stops.push(['outbox listener', () => closeOutboxSignal(runtime)]);
    stops.push(['webhook sender', () => closeSender(runtime)]);
    stops.push(['jobs', () => jobs.stop()]);
    if (options.workJobs ?? config.runJobs) {
      warmAmlIndex(logger);
      await jobs.start();
    }
    return runtime;
  } catch (error) {
    await stopAll();
    throw error;
  }
}
