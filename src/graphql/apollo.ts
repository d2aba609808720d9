import path from 'node:path';
import { ApolloServer, type ApolloServerPlugin } from '@apollo/server';
import { ApolloServerPluginCacheControlDisabled } from '@apollo/server/plugin/disabled';
import { koaMiddleware } from '@as-integrations/koa';
import { GraphQLError, type GraphQLFormattedError, type GraphQLSchema } from 'graphql';
import type { Context, Middleware, Next } from 'koa';
import { buildSchema } from 'type-graphql';
import { ApiError, fromDatabaseError, parameterInvalid } from '../errors.js';
import { ApiKeyResolver } from '../resolvers/api-key.resolver.js';
import { authChecker } from '../resolvers/auth-checker.js';
import { ViewerResolver } from '../resolvers/viewer.resolver.js';
import { ApplicantResolver } from '../resolvers/applicant.resolver.js';
import { FlowResolver } from '../resolvers/flow.resolver.js';
import { ConsoleResolver } from '../resolvers/console.resolver.js';
import { ReportingResolver } from '../resolvers/reporting.resolver.js';
import { ReviewResolver } from '../resolvers/review.resolver.js';
import { TeamResolver } from '../resolvers/team.resolver.js';
import { SettingsResolver } from '../resolvers/settings.resolver.js';
import { TagResolver } from '../resolvers/tag.resolver.js';
import { VerificationResolver } from '../resolvers/verification.resolver.js';
import { ExportsResolver } from '../resolvers/exports.resolver.js';
import { LogsResolver } from '../resolvers/logs.resolver.js';
import { SessionResolver } from '../resolvers/session.resolver.js';
import { WebhookResolver } from '../resolvers/webhook.resolver.js';
import { memberAuthentication } from '../http/auth.js';
import { RateLimiterMemory, type RateLimiterRes } from 'rate-limiter-flexible';
import { pathOfNulCharacter } from '../http/body.js';
import { costLimitPlugin, limitRules, MAX_DOCUMENT_TOKENS, refuseLargeDocument } from './limits.js';
import type { Runtime } from '../runtime.js';
import { withLazyFork, type ServiceContext } from '../services/shared/index.js';
import { systemFork } from '../orm.js';

export const RESOLVERS = [
  ViewerResolver,
  ApiKeyResolver,
  VerificationResolver,
  FlowResolver,
  TagResolver,
  ApplicantResolver,
  SettingsResolver,
  ReviewResolver,
  ConsoleResolver,
  TeamResolver,
  LogsResolver,
  ExportsResolver,
  ReportingResolver,
  SessionResolver,
  WebhookResolver,
] as const;

export const SCHEMA_FILE = path.resolve('src/schema/schema.graphql');

/** The type-graphql schema; `emit` writes src/schema/schema.graphql (npm run cli -- schema). */
export function buildGraphqlSchema(emit = false): Promise<GraphQLSchema> {
  return buildSchema({
    resolvers: RESOLVERS,
    authChecker,
    validate: false,
    emitSchemaFile: emit ? SCHEMA_FILE : false,
  });
}

/** ApiErrors keep the spec's code and type in `extensions`; anything else is an opaque api_error. */
export function formatError(formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError {
  const raw = error instanceof GraphQLError ? error.originalError : error;
  const original = fromDatabaseError(raw) ?? raw;
  if (original instanceof ApiError) {
    return {
      ...formatted,
      message: original.message,
      extensions: {
        code: original.code,
        type: original.type,
        status: original.status,
        ...(original.param !== undefined ? { param: original.param } : {}),
        ...(original.detail !== undefined ? { detail: original.detail } : {}),
      },
    };
  }
  const code = formatted.extensions?.code;
  if (typeof code === 'string' && code !== 'INTERNAL_SERVER_ERROR') {
    const { stacktrace: _stacktrace, ...extensions } = formatted.extensions ?? {};
    return { ...formatted, extensions: { ...extensions, type: 'invalid_request_error' } };
  }
  return {
    message: 'An internal error occurred.',
    locations: formatted.locations,
    path: formatted.path,
    extensions: { code: 'INTERNAL_ERROR', type: 'api_error' },
  };
}

/** Adds the request id to every error and logs internal failures with it. */
const requestIdPlugin: ApolloServerPlugin<ServiceContext> = {
  async requestDidStart() {
    return {
      async didEncounterErrors({ errors, contextValue }) {
        for (const error of errors) {
          if (
            !(error.originalError instanceof ApiError) &&
            !fromDatabaseError(error.originalError) &&
            !error.extensions?.code
          ) {
            contextValue.log.error({ err: error.originalError ?? error, path: error.path }, 'graphql: internal error');
          }
        }
      },
      async willSendResponse({ response, contextValue }) {
        if (response.body.kind === 'single' && response.body.singleResult.errors) {
          response.body.singleResult.errors = response.body.singleResult.errors.map((e) => ({
            ...e,
            extensions: { ...e.extensions, request_id: contextValue.requestId },
          }));
        }
      },
    };
  },
};

/**
 * A NUL character breaks PostgreSQL's wire protocol, so it is refused before any resolver runs:
 * in variables, in the query text (raw or as a \u0000 escape in a string literal) or the URL.
 */
function refuseNulCharacters(ctx: Context): void {
  const body = (ctx.request as { body?: { query?: unknown; variables?: unknown } }).body;
  const query = typeof body?.query === 'string' ? body.query : '';
  const param =
    pathOfNulCharacter(ctx.query) ??
    pathOfNulCharacter(body?.variables, 'variables') ??
    (/\u0000|\\u0000/.test(query) ? 'query' : null);
  if (param) throw parameterInvalid(param, 'must not contain a NUL character');
}

/** `/graphql` for team members: member authentication, then Apollo with the request's ServiceContext. */
export async function graphqlMiddleware(
  runtime: Runtime,
): Promise<{ middleware: Middleware; stop: () => Promise<void> }> {
  const schema = await buildGraphqlSchema();
  const apollo = new ApolloServer<ServiceContext>({
    schema,
    validationRules: limitRules,
    // The parser gives up after this many tokens (GRAPHQL_PARSE_FAILED, 400): it bounds every rule after it.
    parseOptions: { maxTokens: MAX_DOCUMENT_TOKENS },
    formatError,
    introspection: true,
    // Never a stack trace or server path in an answer, whatever NODE_ENV says.
    includeStacktraceInErrorResponses: false,
    // No cache hints are used, and the default cache-control plugin wraps every field resolver
    // (~600 wrapped calls for a page of 50) only to answer `no-store`, which the middleware sets.
    plugins: [requestIdPlugin, costLimitPlugin(schema), ApolloServerPluginCacheControlDisabled()],
    // The server's own ordered shutdown stops Apollo; its signal handlers would race it.
    stopOnTerminationSignals: false,
  });
  await apollo.start();
  const authenticate = memberAuthentication(runtime);
  // A sign-in has no session yet: operation SignIn without a token runs with no member, and
  // the authChecker refuses every field but signIn to it.
  const anonymousSignIn = async (ctx: Context, next: Next) => {
    ctx.state.svc = withLazyFork(
      {
        requestId: ctx.state.requestId,
        log: ctx.state.log,
        merchantId: '',
        caller: { kind: 'system' },
        modes: [],
        runtime,
        surface: 'graphql',
        remoteAddress: ctx.ip,
      },
      () => systemFork(runtime.orm),
    );
    await next();
  };
  const isSignIn = (ctx: Context) =>
    ctx.method === 'POST' &&
    !ctx.get('authorization') &&
    (ctx.request as { body?: { operationName?: unknown } }).body?.operationName === 'SignIn';
  // Each member's GraphQL operations count against a budget, as each key's calls do.
  const budget = new RateLimiterMemory({
    keyPrefix: 'graphql-member',
    points: runtime.config.graphqlRateLimitPerMinute,
    duration: 60,
  });
  const spend = async (ctx: Context) => {
    const { caller } = ctx.state.svc as ServiceContext;
    if (caller.kind !== 'member') return;
    await budget.consume(caller.memberId).catch((refusal: RateLimiterRes) => {
      const retryAfter = Math.max(1, Math.ceil(refusal.msBeforeNext / 1000));
      throw new ApiError(
        429,
        'rate_limit_error',
        'RATE_LIMITED',
        `Too many GraphQL operations: this team member has spent its budget of ${runtime.config.graphqlRateLimitPerMinute} a minute. Retry after the Retry-After seconds.`,
        {
          headers: { 'Retry-After': String(retryAfter) },
        },
      );
    });
  };
  const handler = koaMiddleware(apollo, { context: async ({ ctx }) => ctx.state.svc as ServiceContext });
  const middleware = async (ctx: Context, next: Next) => {
    if (ctx.path !== '/graphql') return next();
    // Member data: never stored by a cache (what Apollo's cache-control plugin used to send).
    ctx.set('Cache-Control', 'no-store');
    try {
      refuseLargeDocument((ctx.request as { body?: unknown }).body, ctx.query);
      refuseNulCharacters(ctx);
      await (isSignIn(ctx) ? anonymousSignIn : authenticate)(ctx, async () => {
        await spend(ctx);
        await handler(ctx as never, next as never);
      });
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      // GraphQL clients read failures from `errors`; the envelope's fields go in extensions.
      ctx.status = error.status;
      for (const [name, value] of Object.entries(error.headers ?? {})) ctx.set(name, value);
      const param = error.param !== undefined ? { param: error.param } : {};
      ctx.body = {
        errors: [
          {
            message: error.message,
            extensions: {
              ...error.detail,
              code: error.code,
              type: error.type,
              ...param,
              request_id: ctx.state.requestId,
            },
          },
        ],
      };
    }
  };
  return { middleware, stop: () => apollo.stop() };
}
