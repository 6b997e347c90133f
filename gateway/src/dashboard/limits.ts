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

/** A list field costs its children times the size asked (`first` or `limit`), one otherwise. */
const pageSizeEstimator: ComplexityEstimator = ({ args, childComplexity }) => {
  const size = Number(args.first ?? args.limit ?? 1);
  return 1 + childComplexity * (Number.isFinite(size) && size > 0 ? size : 1);
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
            if (err instanceof GraphQLError) throw new GraphQLError(err.message, { extensions: { code: 'ERR_VALIDATION', http: { status: 400 } } });
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
