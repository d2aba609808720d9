export { EnginePool, EngineTaskError, defaultConcurrency, type EnginePoolOptions } from './pool.js';
export type { TaskName, TaskPayload, TaskResult } from './tasks.js';
