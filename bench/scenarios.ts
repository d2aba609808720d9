import type { LoadSettings, LoadTarget, Measurement } from './load.js';
import { graphqlScenarios } from './graphql.js';
import { reviewQueueComparisons, reviewQueueScenarios } from './review-queue.js';
import { reportingComparisons, reportingScenarios } from './reporting.js';
import { lookupComparisons, lookupScenarios } from './lookup.js';
import { logsComparisons, logsScenarios } from './logs.js';
import { requestLogComparisons, requestLogScenarios } from './request-log-cost.js';
import { verificationComparisons, verificationScenarios } from './verifications.js';
import { webhookScenarios } from './webhooks.js';
import { engineScenarios } from './engine.js';
import { deadEndpointComparisons, deadEndpointScenarios } from './dead-endpoint.js';
import { graphqlAbuseComparisons, graphqlAbuseScenarios } from './graphql-abuse.js';
import { faceNetworkScenarios } from './face-network.js';
import { consolePageScenarios } from './console-pages.js';

/** Everything a scenario may need; run.ts builds it once both servers are up and an account exists. */
export interface BenchContext {
  /** The service, e.g. http://127.0.0.1:40123 (no trailing slash). */
  serviceUrl: string;
  /** The bare node:http baseline server. */
  bareUrl: string;
  /** The one-middleware Koa baseline (the framework's floor). */
  koaUrl: string;
  /** `keys.sandbox.secret_key` of the account `cli bootstrap` created for this run. */
  sandboxKey: string;
  /** `member.session_token` of the account's owner: /graphql and /v1/console authenticate members. */
  memberToken: string;
  merchantId: string;
  /** A further account (cli bootstrap --name), for a scenario whose data must be kept apart and removed by account. */
  bootstrap(name: string): Promise<{
    merchantId: string;
    sandboxKey: string;
    liveKey: string;
    memberToken: string;
    ownerEmail: string;
    ownerPassword: string;
  }>;
  /** Another service process on the same database and store with `env` added (stopped with the rest); resolves with its URL. */
  startService(name: string, env: Record<string, string>): Promise<string>;
  settings: LoadSettings;
  /** Warm-up + measured run with the bench's settings; throws on any unexpected status or socket error. */
  measure(target: LoadTarget, overrides?: Partial<LoadSettings>): Promise<Measurement>;
  log(line: string): void;
}

export interface Scenario {
  /** Stable key: used in results JSON and by comparisons. */
  name: string;
  /** Shown in the table and the progress line. */
  label: string;
  /**
   * Prepare whatever the scenario needs (seed data, a webhook receiver...) and return one
   * measurement. Setup belongs here, outside ctx.measure, so it is not timed.
   */
  run(ctx: BenchContext): Promise<Measurement>;
  /**
   * Set for a scenario that is one plain load target: the runner may then measure it in turns
   * with the other such scenarios (see `interleaved`) instead of calling `run`.
   */
  target?: (ctx: BenchContext) => LoadTarget;
}

/** A scenario that is one load target, measurable alone (`run`) or in turns (`target`). */
function single(name: string, label: string, target: (ctx: BenchContext) => LoadTarget): Scenario {
  return { name, label, target, run: (ctx) => ctx.measure(target(ctx)) };
}

/** A throughput ratio reported as PASS / BELOW TARGET (or, without a target, for context); it never fails the run. */
export interface Comparison {
  name: string;
  numerator: string;
  denominator: string;
  /** Minimum acceptable requests/s ratio; absent for a ratio shown only to explain another. */
  target?: number;
}

const bearer = (ctx: BenchContext) => ({ authorization: `Bearer ${ctx.sandboxKey}` });

/**
 * Run in this order; add later scenarios at the end. The verification scenarios stay before
 * webhooks: its endpoint would turn every later create into deliveries to a closed receiver.
 */
export const scenarios: Scenario[] = [
  single('bare', 'bare node:http GET /', (ctx) => ({ url: `${ctx.bareUrl}/` })),
  single('koa', 'Koa, one middleware, GET /', (ctx) => ({ url: `${ctx.koaUrl}/` })),
  single('healthz', 'service GET /healthz', (ctx) => ({ url: `${ctx.serviceUrl}/healthz` })),
  single('merchant', 'service GET /v1/merchant (authenticated)', (ctx) => ({
    url: `${ctx.serviceUrl}/v1/merchant`,
    headers: bearer(ctx),
  })),
  ...verificationScenarios,
  ...deadEndpointScenarios,
  ...graphqlScenarios,
  ...graphqlAbuseScenarios,
  ...reviewQueueScenarios,
  ...webhookScenarios,
  ...lookupScenarios,
  ...logsScenarios,
  ...requestLogScenarios,
  ...reportingScenarios,
  ...engineScenarios,
  ...faceNetworkScenarios,
  ...consolePageScenarios,
];

/**
 * The framework comparisons' scenarios, measured in turns (bare, healthz, merchant, bare, ...)
 * so the ratios between them compare the same moments of a shared machine.
 */
export const interleaved = ['bare', 'koa', 'healthz', 'merchant'];

export const comparisons: Comparison[] = [
  // Framework overhead: Koa, router, middleware stack against raw node:http.
  // No target since stock Koa (issue 19): printed as context, like the two below.
  { name: 'healthz/bare', numerator: 'healthz', denominator: 'bare' },
  // Context for healthz/bare, no target: Koa's own share of it, and our layer's share of the rest.
  { name: 'koa/bare', numerator: 'koa', denominator: 'bare' },
  { name: 'healthz/koa', numerator: 'healthz', denominator: 'koa' },
  // Cost of key lookup, rate limiting and one database read per request.
  { name: 'authenticated/healthz', numerator: 'merchant', denominator: 'healthz', target: 0.3 },
  // Webhook delivery through outbox, Agenda and the delivery log against a plain sign-and-POST loop.
  { name: 'webhooks/ceiling', numerator: 'webhooks', denominator: 'webhooks-ceiling', target: 0.5 },
  ...verificationComparisons,
  ...deadEndpointComparisons,
  ...graphqlAbuseComparisons,
  ...lookupComparisons,
  ...reviewQueueComparisons,
  ...logsComparisons,
  ...requestLogComparisons,
  ...reportingComparisons,
];
