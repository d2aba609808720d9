import { createLogger, logLevelOf, type Logger } from '../../src/logger.js';

/** What a test server logs: nothing by default; TEST_LOG_LEVEL=debug (or any level) shows it on stderr. */
export function testLogger(): Logger {
  return createLogger(logLevelOf(process.env.TEST_LOG_LEVEL, 'silent'), 2);
}

/** A logger writing the real JSON lines (redaction included) into `lines`, for tests that read the log. */
export function capturingLogger(level: Parameters<typeof createLogger>[0] = 'trace'): {
  logger: Logger;
  lines: string[];
} {
  const lines: string[] = [];
  return { logger: createLogger(level, { write: (line: string) => void lines.push(line) }), lines };
}
