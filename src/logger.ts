import { pino, type DestinationStream, type Level, type Logger } from 'pino';

export type { Logger };
export type LogLevel = Level | 'silent';
export const LOG_LEVELS: readonly LogLevel[] = ['silent', 'fatal', 'error', 'warn', 'info', 'debug', 'trace'];

/**
 * Keys whose values never reach a log line, at any depth up to four levels (a request body's
 * `applicant`, `sandbox.document`, a lookup's `emails`, an error's `detail`...): applicant
 * identity, secrets and bearer tokens. A whole object under such a key is replaced, so a field
 * added to `applicant` later is covered without touching this list.
 */
const SENSITIVE_KEYS = [
  // identity
  'applicant',
  'email',
  'emails',
  'document',
  'first_name',
  'last_name',
  'date_of_birth',
  'national_id',
  'reference_id',
  'address',
  'identity',
  'mrz',
  // secrets and tokens
  'secret_key',
  'signing_secret',
  'client_token',
  'password',
  'token',
  'session_token',
  'authorization',
  'cookie',
  'upload_url',
  'download_url',
  // the same under GraphQL's camelCase names
  'firstName',
  'lastName',
  'dateOfBirth',
  'nationalId',
  'referenceId',
  'secretKey',
  'signingSecret',
  'clientToken',
  'sessionToken',
  'uploadUrl',
  'downloadUrl',
];

export const REDACT_PATHS = SENSITIVE_KEYS.flatMap((key) => [
  key,
  `*.${key}`,
  `*.*.${key}`,
  `*.*.*.${key}`,
  `*.*.*.*.${key}`,
]);

/**
 * The process's JSON logger: one line per entry, ISO time, level as a word, sensitive keys
 * redacted (REDACT_PATHS). `destination` is stdout (1) by default; the CLI passes stderr (2)
 * so its stdout stays pure JSON, tests pass a stream they read. Writes are synchronous: a
 * line logged just before the process exits is not lost.
 */
export function createLogger(level: LogLevel, destination: DestinationStream | 1 | 2 = 1): Logger {
  return pino(
    {
      level,
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: REDACT_PATHS, censor: '[Redacted]' },
    },
    typeof destination === 'number' ? pino.destination({ fd: destination, sync: true }) : destination,
  );
}

/** A level name from the environment (LOG_LEVEL), else `fallback`. */
export function logLevelOf(raw: string | undefined, fallback: LogLevel = 'info'): LogLevel {
  return LOG_LEVELS.includes(raw as LogLevel) ? (raw as LogLevel) : fallback;
}
