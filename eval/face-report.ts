import '../src/warnings.js';
import { evaluateFaceEngine } from './faces/synthetic.js';

/**
 * `npm run engine:eval:face`: the face rows of the engine evaluation (face match and liveness
 * on the corpus of test/engine/faces, through the worker pool), printed as Markdown. The
 * combined `npm run engine:eval` calls `evaluateFaceEngine` itself.
 */
const result = await evaluateFaceEngine();
process.stdout.write(`# Face match and liveness\n\n${result.markdown}\n`);
