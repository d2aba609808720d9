import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth';
import { GraphQLError, type GraphQLSchema, type ValidationContext, type ASTVisitor } from 'graphql';
import { getComplexity, simpleEstimator, type ComplexityEstimator } from 'graphql-query-complexity';
import type { ApolloServerPlugin } from '@apollo/server';
import { ApiError } from '../errors.js';
import { MAX_PAGE_SIZE } from '../services/shared/index.js';

/** Most a query may cost: one point a field, a list's fields times its page size (`first`). */
export const MAX_QUERY_COST = 5_000;
/**
 * Deepest selection nesting (graphql-armor's max-depth rule; `__schema` is exempt there and
 * counted by the cost limit instead). Today's deepest document needs 4.
 */
export const MAX_QUERY_DEPTH = 10;
/** Most aliased fields in one document (each alias re-runs its field). */
export const MAX_ALIASES = 30;
/** A list field without `first` is counted at the API's default page size. */
const DEFAULT_LIST_SIZE = 20;

const refused = (code: string, message: string, extensions: Record<string, unknown> = {}) =>
  new GraphQLError(message, { extensions: { code, ...extensions, http: { status: 400 } } });

/** A field taking `first` costs its children once per row it may return. */
const pageSizeEstimator: ComplexityEstimator = ({ field, args, childComplexity }) => {
  if (!field.args.some((arg) => arg.name === 'first')) return undefined;
  // A `first` above the page maximum is refused by the resolver itself (PARAMETER_INVALID).
  const size = typeof args.first === 'number' ? Math.min(args.first, MAX_PAGE_SIZE) : DEFAULT_LIST_SIZE;
  return 1 + childComplexity * Math.max(1, size);
};

/** Refuses a document with more than MAX_ALIASES aliased fields before anything runs. */
export function aliasLimit(context: ValidationContext): ASTVisitor {
  let aliases = 0;
  return {
    Field(node) {
      if (node.alias && ++aliases === MAX_ALIASES + 1) {
        context.reportError(
          refused('QUERY_TOO_MANY_ALIASES', `The query uses more than ${MAX_ALIASES} aliases.`, { limit: MAX_ALIASES }),
        );
      }
    },
  };
}

/**
 * Refuses a selection nested deeper than MAX_QUERY_DEPTH. graphql-armor's rule follows each
 * fragment once (a fragment cycle or an unknown fragment cannot make it recurse without end,
 * which graphql-depth-limit did, answering 500); nesting itself is bounded by the token limit.
 */
const depthLimit = maxDepthRule({
  n: MAX_QUERY_DEPTH,
  ignoreIntrospection: true,
  propagateOnRejection: false,
  onReject: [
    (context, error) =>
      context?.reportError(
        refused(
          'GRAPHQL_VALIDATION_FAILED',
          `The query exceeds maximum operation depth of ${MAX_QUERY_DEPTH} (${error.message.replace(/^Syntax Error: /, '')})`,
          { limit: MAX_QUERY_DEPTH },
        ),
      ),
  ],
});

/** Validation rules for Apollo (run with graphql-js's own): depth and aliases. */
export const limitRules = [depthLimit, aliasLimit];

/**
 * Computes the operation's cost with graphql-query-complexity once it is parsed and
 * validated, and refuses it (QUERY_TOO_COMPLEX, with `cost` and `limit`) before any resolver runs.
 */
export function costLimitPlugin(schema: GraphQLSchema): ApolloServerPlugin {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ request, document }) {
          let cost: number;
          try {
            cost = getComplexity({
              schema,
              query: document,
              operationName: request.operationName ?? undefined,
              variables: request.variables ?? {},
              estimators: [pageSizeEstimator, simpleEstimator({ defaultComplexity: 1 })],
            });
          } catch (error) {
            // Variables that do not fit their declared types: the caller's mistake (400), as
            // execution's own coercion would answer, not an internal error.
            if (error instanceof GraphQLError) throw refused('BAD_USER_INPUT', error.message);
            throw error;
          }
          if (cost > MAX_QUERY_COST) {
            throw refused(
              'QUERY_TOO_COMPLEX',
              `The query costs ${cost}, more than the limit of ${MAX_QUERY_COST}: ask for fewer fields or smaller pages.`,
              { cost, limit: MAX_QUERY_COST },
            );
          }
        },
      };
    },
  };
}

/**
 * Largest GraphQL document (UTF-8 bytes of `query`) accepted; checked before parsing, so a
 * megabyte of document costs a length check, not a parse. Today's largest document is ~2 KB.
 */
export const MAX_DOCUMENT_BYTES = 32 * 1024;
/**
 * Most tokens the parser reads before giving up (graphql-js `maxTokens`, passed through
 * Apollo's `parseOptions`): it bounds the work of every validation rule after it, and the
 * nesting a recursive rule can meet. The full introspection query has under 200.
 */
export const MAX_DOCUMENT_TOKENS = 2_000;

/** The document a request carries (POST body or GET query string), or undefined. */
function documentOf(body: unknown, query: Record<string, unknown>): unknown {
  const fromBody = (body as { query?: unknown } | undefined)?.query;
  return fromBody !== undefined ? fromBody : query.query;
}

/** Throws 400 DOCUMENT_TOO_LARGE for a document over MAX_DOCUMENT_BYTES (before parsing or authentication). */
export function refuseLargeDocument(body: unknown, query: Record<string, unknown>): void {
  const document = documentOf(body, query);
  // A character is at most 3 UTF-8 bytes in a JS string's code units, so long strings are refused without encoding them.
  if (typeof document !== 'string' || document.length <= MAX_DOCUMENT_BYTES / 3) return;
  if (document.length > MAX_DOCUMENT_BYTES || Buffer.byteLength(document) > MAX_DOCUMENT_BYTES) {
    throw new ApiError(
      400,
      'invalid_request_error',
      'DOCUMENT_TOO_LARGE',
      `The GraphQL document is larger than ${MAX_DOCUMENT_BYTES} bytes; send a smaller one.`,
      { detail: { limit: MAX_DOCUMENT_BYTES } },
    );
  }
}
