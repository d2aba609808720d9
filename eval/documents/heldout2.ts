// The held-out-2 commands documented before the frozen sets were generalised
// (`node dist-eval/eval/documents/heldout2.js --prepare=<dir>`, `--overlap`) keep working: they
// are eval/documents/frozen.ts restricted to heldout2 unless --sets= says otherwise.
import { pathToFileURL } from 'node:url';
import { main } from './frozen.js';

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) main(process.argv, ['heldout2']);
