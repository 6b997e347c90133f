import type { ApolloServerPlugin } from '@apollo/server';
import { ApolloServerErrorCode } from '@apollo/server/errors';
import { GraphQLError, type GraphQLFormattedError } from 'graphql';

/** Apollo's and the federation gateway's codes for a request that is the caller's mistake. */
const CLIENT_MISTAKE: readonly string[] = [
  ApolloServerErrorCode.GRAPHQL_PARSE_FAILED,
  ApolloServerErrorCode.GRAPHQL_VALIDATION_FAILED,
  ApolloServerErrorCode.BAD_USER_INPUT,
  ApolloServerErrorCode.BAD_REQUEST,
  ApolloServerErrorCode.OPERATION_RESOLUTION_FAILURE,
  ApolloServerErrorCode.PERSISTED_QUERY_NOT_FOUND,
  ApolloServerErrorCode.PERSISTED_QUERY_NOT_SUPPORTED,
  'INVALID_GRAPHQL',
];

/**
 * Every GraphQL error answers a code of CONVENTIONS "Errors": a domain error keeps its `ERR_`
 * code (the subgraphs set it); a request the schema or the protocol refuses (a value outside an
 * enum, an unknown field, an empty query, a batch) answers `ERR_VALIDATION`, a mutation sent by GET
 * `ERR_METHOD_NOT_ALLOWED`; anything else is a server fault and says `Internal error`, nothing of
 * its own message.
 */
export function formatGatewayError(formatted: GraphQLFormattedError): GraphQLFormattedError {
  const code = formatted.extensions?.code;
  if (typeof code === 'string' && code.startsWith('ERR_')) return formatted;
  if (typeof code === 'string' && CLIENT_MISTAKE.includes(code)) {
    const errCode = /^GET requests only support/.test(formatted.message) ? 'ERR_METHOD_NOT_ALLOWED' : 'ERR_VALIDATION';
    return { ...formatted, extensions: { ...formatted.extensions, code: errCode } };
  }
  const { path } = formatted;
  return { message: 'Internal error', ...(path && { path }), extensions: { code: 'ERR_INTERNAL' } };
}

/**
 * An operation name the document does not have, or several operations without a name, is the
 * caller's mistake: 400 `ERR_VALIDATION` before the gateway plans anything (the federation
 * gateway would answer it as a 500).
 */
export function operationResolutionPlugin<C extends object>(): ApolloServerPlugin<C> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ operation, request }) {
          if (operation) return;
          const message = request.operationName
            ? `Unknown operation named "${request.operationName.slice(0, 100)}"`
            : 'The query has several operations: name the one to run in operationName';
          throw new GraphQLError(message, { extensions: { code: 'ERR_VALIDATION', http: { status: 400 } } });
        },
      };
    },
  };
}
