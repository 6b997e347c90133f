import type { ApolloServerPlugin } from '@apollo/server';
import { GraphQLError } from 'graphql';
import depthLimit from 'graphql-depth-limit';
import { getComplexity, simpleEstimator, type ComplexityEstimator } from 'graphql-query-complexity';

export interface QueryLimits {
  /** Deepest selection accepted (`GRAPHQL_MAX_DEPTH`). */
  maxDepth: number;
  /** Most fields an operation may resolve, lists counted at their asked size (`GRAPHQL_MAX_COMPLEXITY`). */
  maxComplexity: number;
}

/** The most items any list field answers (the services' largest `first`/`limit` maximum). */
export const LARGEST_PAGE = 500;

/**
 * A list field costs its children times the size asked (`first`, `last` or `limit`), one otherwise. A size
 * that is not a positive integer (0, negative, absurd) is counted at the largest page a service
 * answers: the service refuses it, but the estimate never takes it for a cheap one.
 */
export const pageSizeEstimator: ComplexityEstimator = ({ args, childComplexity }) => {
  const asked = args.first ?? args.last ?? args.limit;
  if (asked === undefined || asked === null) return 1 + childComplexity;
  const size = Number(asked);
  return 1 + childComplexity * (Number.isInteger(size) && size > 0 && size <= LARGEST_PAGE ? size : LARGEST_PAGE);
};

/** Validation rule of the gateway: operations deeper than the limit are refused before planning. */
export const depthRule = (limits: QueryLimits) => depthLimit(limits.maxDepth);

/** Refuses an operation whose estimated cost exceeds the limit, before any subgraph is asked. */
export function complexityPlugin<C extends object>(limits: QueryLimits): ApolloServerPlugin<C> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ schema, document, request }) {
          let complexity: number;
          try {
            complexity = getComplexity({
              schema,
              query: document,
              operationName: request.operationName,
              variables: request.variables,
              estimators: [pageSizeEstimator, simpleEstimator({ defaultComplexity: 1 })],
            });
          } catch (err) {
            // It coerces the variables first: one the schema refuses (a value outside an enum) is the caller's mistake.
            if (err instanceof GraphQLError)
              throw new GraphQLError(err.message, { extensions: { code: 'ERR_VALIDATION', http: { status: 400 } } });
            throw err;
          }
          if (complexity > limits.maxComplexity) {
            throw new GraphQLError(`Operation too complex: ${complexity} > ${limits.maxComplexity}`, {
              extensions: { code: 'ERR_QUERY_TOO_COMPLEX', http: { status: 400 } },
            });
          }
        },
      };
    },
  };
}
