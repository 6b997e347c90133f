import { ApolloServerErrorCode } from '@apollo/server/errors';
import type { GraphQLFormattedError } from 'graphql';

const INVALID_REQUEST: readonly string[] = [
  ApolloServerErrorCode.GRAPHQL_PARSE_FAILED,
  ApolloServerErrorCode.GRAPHQL_VALIDATION_FAILED,
  ApolloServerErrorCode.BAD_USER_INPUT,
];

/**
 * An operation the schema refuses (a value outside an enum, an unknown field, a variable of the
 * wrong type) answers `ERR_VALIDATION`, as the same mistake does when a subgraph's rules find it.
 */
export function formatGatewayError(formatted: GraphQLFormattedError): GraphQLFormattedError {
  const code = formatted.extensions?.code;
  if (typeof code !== 'string' || !INVALID_REQUEST.includes(code)) return formatted;
  return { ...formatted, extensions: { ...formatted.extensions, code: 'ERR_VALIDATION' } };
}
