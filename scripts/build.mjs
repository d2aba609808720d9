// `npm run build`: an incremental TypeScript build (tsc --build). On an unchanged tree it checks
// the build info and exits in about a second; the first build after install says so.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';

if (!fs.existsSync('dist/.tsbuildinfo')) console.log('Building dist/ from src/ (first build after install: about 30 s; later builds only what changed)');
const tsc = spawnSync(process.execPath, ['node_modules/typescript/bin/tsc', '--build', 'tsconfig.build.json'], { stdio: 'inherit' });
process.exit(tsc.status ?? 1);
