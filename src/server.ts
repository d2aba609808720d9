import './warnings.js';
import 'reflect-metadata';
import { createApp } from './app.js';
import { loadConfig } from './config.js';
import { takeOverShutdownSignals } from './embedded/postgres.js';
import { startRuntime } from './runtime.js';

/** `npm start`: embedded or operator services, migrations, HTTP and (by default) the job workers. */
async function main(): Promise<void> {
  const config = loadConfig();
  const log = (line: string) => console.log(line);
  const runtime = await startRuntime(config, { log });
  await takeOverShutdownSignals();
  const app = await createApp(runtime);
  const url = await app.listen(config.port, config.host);
  log(`idv-platform listening on ${url}  (jobs: ${config.runJobs ? 'in this process' : 'off; run npm run worker'})`);
  log(`  database: ${config.databaseUrl ? 'DATABASE_URL' : `embedded PostgreSQL (${config.dataDir})`}; store: ${config.s3.endpoint ?? 'embedded S3-compatible store'}`);
  log(`  create the first account:  npm run cli -- bootstrap --json`);

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: stopping server, jobs, store and database`);
    await app.close().then(
      () => log('stopped http server'),
      (error) => log(`server close: ${(error as Error).message}`),
    );
    await runtime.stop();
    log('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((error) => {
  console.error(`failed to start: ${(error as Error).stack ?? error}`);
  process.exit(1);
});
