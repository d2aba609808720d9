import depthLimit from 'graphql-depth-limit';
import { GraphQLError, type GraphQLSchema, type ValidationContext, type ASTVisitor } from 'graphql';
import { getComplexity, simpleEstimator, type ComplexityEstimator } from 'graphql-query-complexity';
import type { ApolloServerPlugin } from '@apollo/server';
import { MAX_PAGE_SIZE } from '../services/shared/index.js';

/** Most a query may cost: one point a field, a list's fields times its page size (`first`). */
export const MAX_QUERY_COST = 5_000;
/**
 * Deepest selection nesting (graphql-depth-limit; introspection fields are exempt there and
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
        context.reportError(refused('QUERY_TOO_MANY_ALIASES', `The query uses more than ${MAX_ALIASES} aliases.`, { limit: MAX_ALIASES }));
      }
    },
  };
}

/** Validation rules for Apollo: depth (graphql-depth-limit) and aliases. */
export const limitRules = [depthLimit(MAX_QUERY_DEPTH), aliasLimit];

/**
 * Computes the operation's cost with graphql-query-complexity once it is parsed and
 * validated, and refuses it (QUERY_TOO_COMPLEX, with `cost` and `limit`) before any resolver runs.
 */
export function costLimitPlugin(schema: GraphQLSchema): ApolloServerPlugin {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ request, document }) {
          const cost = getComplexity({
            schema,
            query: document,
            operationName: request.operationName ?? undefined,
            variables: request.variables ?? {},
            estimators: [pageSizeEstimator, simpleEstimator({ defaultComplexity: 1 })],
          });
          if (cost > MAX_QUERY_COST) {
            throw refused('QUERY_TOO_COMPLEX', `The query costs ${cost}, more than the limit of ${MAX_QUERY_COST}: ask for fewer fields or smaller pages.`, { cost, limit: MAX_QUERY_COST });
          }
        },
      };
    },
  };
}
