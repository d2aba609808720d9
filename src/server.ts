import './warnings.js';
import 'reflect-metadata';
import { createApp } from './app.js';
import { loadConfig } from './config.js';
import { takeOverShutdownSignals } from './embedded/postgres.js';
import { createLogger, logLevelOf } from './logger.js';
import { startRuntime } from './runtime.js';

const logger = createLogger(logLevelOf(process.env.LOG_LEVEL));

/** `npm start`: embedded or operator services, migrations, HTTP and (by default) the job workers. */
async function main(): Promise<void> {
  const config = loadConfig();
  const runtime = await startRuntime(config, { logger });
  await takeOverShutdownSignals();
  const app = await createApp(runtime);
  const url = await app.listen(config.port, config.host);
  logger.info(
    {
      url,
      jobs: config.runJobs ? 'in this process' : 'off; run npm run worker',
      database: config.databaseUrl ? 'DATABASE_URL' : `embedded PostgreSQL (${config.dataDir})`,
      store: config.s3.endpoint ?? 'embedded S3-compatible store',
    },
    `idv-platform listening on ${url}; create the first account: npm run cli -- bootstrap --json`,
  );

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info(`${signal}: stopping server, jobs, store and database`);
    await app.close().then(
      () => logger.info('stopped http server'),
      (error) => logger.error({ err: error }, 'server close failed'),
    );
    await runtime.stop();
    logger.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((error) => {
  logger.fatal({ err: error }, 'failed to start');
  process.exit(1);
});
