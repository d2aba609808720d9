// `npm run build`: the service (an incremental TypeScript build, tsc --build) and the console app
// (vite build, only when its sources changed since the last build). On an unchanged tree it
// checks and exits in about a second; a build that will take a while says so in one line.
// `--server` builds the service only (the CLI and the worker do not serve the console).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const run = (args, env = process.env) => {
  const result = spawnSync(process.execPath, args, { stdio: 'inherit', env });
  if (result.status !== 0) process.exit(result.status ?? 1);
};

/** The newest modification time under `entries` (files or folders), in ms. */
function newest(entries) {
  let latest = 0;
  const visit = (entry) => {
    const stat = fs.statSync(entry, { throwIfNoEntry: false });
    if (!stat) return;
    if (stat.isDirectory()) for (const name of fs.readdirSync(entry)) visit(path.join(entry, name));
    else latest = Math.max(latest, stat.mtimeMs);
  };
  entries.forEach(visit);
  return latest;
}

if (!fs.existsSync('dist/.tsbuildinfo'))
  console.log(
    'Building the service into dist/ (first build after install: about 30 s; later builds only what changed)',
  );
// Code that has left src/ (the benchmark is bench/, the AML evaluation eval/, the checks'
// orchestration services/checks) must not linger in dist/ from a build made before it moved.
const MOVED = [
  'bench',
  'engine/eval-aml',
  'engine/aml/eval-cases',
  'engine/aml/evaluate',
  'engine/run-checks',
  'engine/rollup',
  'engine/images',
  'engine/document-record',
];
for (const moved of MOVED)
  for (const suffix of ['', '.js', '.js.map']) fs.rmSync(`dist/${moved}${suffix}`, { recursive: true, force: true });
run(['node_modules/typescript/bin/tsc', '--build', 'tsconfig.build.json']);

if (!process.argv.includes('--server')) {
  const built = fs.statSync('console/dist/index.html', { throwIfNoEntry: false })?.mtimeMs ?? 0;
  if (newest(['console/src', 'console/index.html', 'console/vite.config.ts', 'package-lock.json']) > built) {
    console.log('Building the console app into console/dist/ (about 20 s; only after a change to console/)');
    // A production build whatever NODE_ENV the caller runs under (jest sets test).
    run(['node_modules/vite/bin/vite.js', 'build', '--config', 'console/vite.config.ts', '--logLevel', 'warn'], {
      ...process.env,
      NODE_ENV: 'production',
    });
  }
}
