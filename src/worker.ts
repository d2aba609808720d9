import './warnings.js';
import 'reflect-metadata';
import { loadConfig } from './config.js';
import { startRuntime } from './runtime.js';

/** `npm run worker`: a process that only works jobs, for operators who scale out. */
async function main(): Promise<void> {
  const config = loadConfig();
  if (!config.databaseUrl) {
    console.error('npm run worker needs DATABASE_URL (and S3_ENDPOINT): workers share the operator database with the servers.');
    process.exit(1);
  }
  const runtime = await startRuntime(config, { workJobs: true });
  console.log('worker started');
  const shutdown = async () => {
    await runtime.stop();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown());
  process.on('SIGINT', () => void shutdown());
}

main().catch((error) => {
  console.error(`worker failed: ${(error as Error).stack ?? error}`);
  process.exit(1);
});
