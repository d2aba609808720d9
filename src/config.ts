import path from 'node:path';
import { logLevelOf, type LogLevel } from './logger.js';
import { defaultConcurrency } from './engine/pool/index.js';

export type Mode = 'sandbox' | 'live';
export const MODES: readonly Mode[] = ['sandbox', 'live'];

export interface S3Config {
  /** Unset: the embedded S3-compatible store under `.data/s3` is started. */
  endpoint?: string;
  bucket: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
}

export interface Config {
  port: number;
  host: string;
  publicUrl: string;
  /** Unset: the embedded PostgreSQL under `.data/` is started. */
  databaseUrl?: string;
  dataDir: string;
  s3: S3Config;
  jobsBackend: 'postgres' | 'mongodb';
  mongodbUrl?: string;
  /** Whether this process runs Agenda workers (the server does by default; `RUN_JOBS=false` turns that off). */
  runJobs: boolean;
  rateLimitPerMinute: number;
  /** GraphQL operations a team member may run per minute (the keys' budget is rateLimitPerMinute). */
  graphqlRateLimitPerMinute: number;
  webhookAllowPrivateNetworks: boolean;
  webhookRetrySchedule: number[];
  verificationTtlSeconds: number;
  previewTtlSeconds: number;
  memberSessionTtlSeconds: number;
  /** How long an applicant outcome email waits before it is sent; a decision reversed meanwhile drops it. */
  outcomeEmailDelaySeconds: number;
  /** SMTP server for applicant emails (`smtp://user:pass@host:587`, `smtps://...`); unset: emails are a log line. */
  smtpUrl?: string;
  /** The From of applicant emails. */
  mailFrom: string;
  /** Base64 32-byte master key for identity encryption and fingerprints; unset: generated under dataDir. */
  identityEncryptionKey?: string;
  /** LOG_LEVEL: silent, fatal, error, warn, info (default), debug, trace. */
  logLevel: LogLevel;
  /** REQUEST_LOG=false stops recording key calls in the request log (only for measuring its cost). */
  requestLog: boolean;
  /** The checks engine's worker pool: ENGINE_CONCURRENCY threads (default one per core), ENGINE_TIMEOUT_MS per analysis. */
  engine: { concurrency: number; timeoutMs: number };
}

const DEFAULT_RETRY_SCHEDULE = [0, 5, 300, 1800, 7200, 18000, 36000, 36000];

function int(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer, got "${raw}"`);
  return value;
}

function bool(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (['1', 'true', 'yes'].includes(raw.toLowerCase())) return true;
  if (['0', 'false', 'no'].includes(raw.toLowerCase())) return false;
  throw new Error(`${name} must be true or false, got "${raw}"`);
}

/** SMTP_URL must name an smtp: or smtps: server; a typo fails at start, not at the first email. */
function smtpUrl(raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error('SMTP_URL must be a URL such as smtp://user:password@mail.example.com:587');
  }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:')
    throw new Error(`SMTP_URL must use smtp: or smtps:, got "${url.protocol}"`);
  return raw;
}

/** Reads the operator settings of decisions.md from the environment. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = int(env, 'PORT', 8080);
  const jobsBackend = env.JOBS_BACKEND ?? (env.MONGODB_URL ? 'mongodb' : 'postgres');
  if (jobsBackend !== 'postgres' && jobsBackend !== 'mongodb')
    throw new Error(`JOBS_BACKEND must be postgres or mongodb, got "${jobsBackend}"`);
  if (jobsBackend === 'mongodb' && !env.MONGODB_URL) throw new Error('JOBS_BACKEND=mongodb needs MONGODB_URL');
  const schedule = env.WEBHOOK_RETRY_SCHEDULE
    ? env.WEBHOOK_RETRY_SCHEDULE.split(',').map((s) => Number(s.trim()))
    : DEFAULT_RETRY_SCHEDULE;
  if (schedule.some((n) => !Number.isFinite(n) || n < 0))
    throw new Error('WEBHOOK_RETRY_SCHEDULE must be comma-separated seconds');
  return {
    port,
    host: env.HOST ?? '0.0.0.0',
    publicUrl: (env.PUBLIC_URL ?? `http://127.0.0.1:${port}`).replace(/\/+$/, ''),
    databaseUrl: env.DATABASE_URL || undefined,
    dataDir: path.resolve(env.DATA_DIR ?? '.data'),
    s3: {
      endpoint: env.S3_ENDPOINT || undefined,
      bucket: env.S3_BUCKET ?? 'idv-artefacts',
      region: env.S3_REGION ?? 'us-east-1',
      accessKeyId: env.S3_ACCESS_KEY_ID ?? 'S3RVER',
      secretAccessKey: env.S3_SECRET_ACCESS_KEY ?? 'S3RVER',
    },
    jobsBackend,
    mongodbUrl: env.MONGODB_URL || undefined,
    runJobs: bool(env, 'RUN_JOBS', true),
    rateLimitPerMinute: int(env, 'RATE_LIMIT_PER_MINUTE', 100),
    graphqlRateLimitPerMinute: int(env, 'GRAPHQL_RATE_LIMIT_PER_MINUTE', 600),
    webhookAllowPrivateNetworks: bool(env, 'WEBHOOK_ALLOW_PRIVATE_NETWORKS', false),
    webhookRetrySchedule: schedule,
    verificationTtlSeconds: int(env, 'VERIFICATION_TTL_SECONDS', 86400),
    previewTtlSeconds: int(env, 'PREVIEW_TTL_SECONDS', 1800),
    memberSessionTtlSeconds: int(env, 'MEMBER_SESSION_TTL_SECONDS', 12 * 3600),
    outcomeEmailDelaySeconds: int(env, 'OUTCOME_EMAIL_DELAY_SECONDS', 300),
    smtpUrl: smtpUrl(env.SMTP_URL),
    mailFrom: env.MAIL_FROM || 'Identity verification <no-reply@localhost>',
    identityEncryptionKey: env.IDENTITY_ENCRYPTION_KEY || undefined,
    logLevel: logLevelOf(env.LOG_LEVEL),
    requestLog: bool(env, 'REQUEST_LOG', true),
    engine: {
      concurrency: int(env, 'ENGINE_CONCURRENCY', defaultConcurrency()) || 1,
      timeoutMs: int(env, 'ENGINE_TIMEOUT_MS', 60_000) || 1,
    },
  };
}
