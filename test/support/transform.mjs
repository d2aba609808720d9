/*
 * @swc/jest, with one statement put before every module: `const Math = globalThis.Math;`.
 *
 * Jest runs each test file in a vm context, where every read of a global variable goes through
 * the context's interceptors, which V8 cannot optimise: `Math.abs` in a hot pixel loop (the
 * document engine's glyph comparison, its colour lift) ran about 100 times slower under Jest
 * than under node, and the document tests spent most of their time there. Bound once per
 * module, `Math` is a plain constant again. The statement goes on the module's first line, so
 * line numbers in stack traces are unchanged; the module's own code is untouched.
 */
import crypto from 'node:crypto';
import swcJest from '@swc/jest';

const PRELUDE = 'const Math = globalThis.Math; ';

export default {
  createTransformer(options) {
    const swc = swcJest.createTransformer(options);
    return {
      ...swc,
      process: (src, filename, jestOptions) => swc.process(PRELUDE + src, filename, jestOptions),
      processAsync: (src, filename, jestOptions) => swc.processAsync(PRELUDE + src, filename, jestOptions),
      getCacheKey: (src, filename, ...rest) =>
        crypto
          .createHash('sha1')
          .update(swc.getCacheKey(src, filename, ...rest))
          .update(PRELUDE)
          .digest('hex'),
    };
  },
};
