/** Options a worker thread refuses in an explicit execArgv. */
const V8_HEAP_FLAG = /^--(max|min)-(old|semi|young)-(generation-)?(space-)?size|^--max-heap-size|^--stack-size/;

/**
 * The worker module `name` next to the module at `from` (its import.meta.url), and the
 * execArgv to start it with. From the build it is plain JavaScript and inherits the process's
 * flags implicitly (`npm start` runs node with --max-semi-space-size, which an explicit
 * execArgv refuses); from the TypeScript sources (tests) it gets the process's flags minus V8
 * heap options, plus tsx.
 */
export function workerScript(from: string, name: string, override?: URL): { url: URL; execArgv: string[] | undefined } {
  const url = override ?? new URL(`./${name}${from.endsWith('.ts') ? '.ts' : '.js'}`, from);
  if (!url.pathname.endsWith('.ts')) return { url, execArgv: undefined };
  return { url, execArgv: [...process.execArgv.filter((flag) => !V8_HEAP_FLAG.test(flag)), '--import', 'tsx'] };
}
