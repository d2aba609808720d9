// A pool worker whose analysis kills its thread, as a native crash in a model would.
import runTask from '../../src/engine/pool/worker.js';

export default async function crashingWorker(input: { task: string; payload: unknown }): Promise<unknown> {
  if (input.task === 'face.liveness') process.exit(70);
  return runTask(input);
}
