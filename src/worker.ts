import './warnings.js';
import 'reflect-metadata';
import { loadConfig } from './config.js';
import { createLogger, logLevelOf } from './logger.js';
import { startRuntime } from './runtime.js';

const logger = createLogger(logLevelOf(process.env.LOG_LEVEL));

/** `npm run worker`: a process that only works jobs, for operators who scale out. */
async function main(): Promise<void> {
  const config = loadConfig();
  if (!config.databaseUrl) {
    logger.fatal(
      'npm run worker needs DATABASE_URL (and S3_ENDPOINT): workers share the operator database with the servers.',
    );
    process.exit(1);
  }
  const runtime = await startRuntime(config, { logger, workJobs: true });
  logger.info('worker started');
  const shutdown = async () => {
    await runtime.stop();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown());
  process.on('SIGINT', () => void shutdown());
}

main().catch((error) => {
  logger.fatal({ err: error }, 'worker failed');
  process.exit(1);
});
