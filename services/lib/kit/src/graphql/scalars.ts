import { GraphQLError, GraphQLScalarType, Kind, type ValueNode } from 'graphql';

const instant = (value: unknown): string | undefined => {
  const d = value instanceof Date ? value : typeof value === 'string' && value ? new Date(value) : undefined;
  return d && !Number.isNaN(d.getTime()) ? d.toISOString() : undefined;
};

/**
 * The dashboards' time type (every subgraph uses this one, so the supergraph has one `DateTime`):
 * an instant as ISO 8601 in UTC. Resolvers give Dates or ISO strings; an unreadable value is an
 * error, never a made-up time.
 */
export const DateTime = new GraphQLScalarType({
  name: 'DateTime',
  description: 'An instant, ISO 8601 in UTC: 2026-11-25T20:02:52.955Z',
  serialize(value) {
    const iso = instant(value);
    if (iso === undefined) throw new GraphQLError(`DateTime cannot represent ${JSON.stringify(value)}`);
    return iso;
  },
  parseValue(value) {
    const iso = typeof value === 'string' ? instant(value) : undefined;
    if (iso === undefined) throw new GraphQLError('DateTime must be an ISO 8601 string', { extensions: { code: 'ERR_VALIDATION' } });
    return iso;
  },
  parseLiteral(ast) {
    const iso = ast.kind === Kind.STRING ? instant(ast.value) : undefined;
    if (iso === undefined) throw new GraphQLError('DateTime must be an ISO 8601 string', { extensions: { code: 'ERR_VALIDATION' } });
    return iso;
  },
});

const literal = (ast: ValueNode): unknown => {
  switch (ast.kind) {
    case Kind.STRING:
    case Kind.BOOLEAN:
      return ast.value;
    case Kind.INT:
    case Kind.FLOAT:
      return Number(ast.value);
    case Kind.NULL:
      return null;
    case Kind.LIST:
      return ast.values.map(literal);
    case Kind.OBJECT:
      return Object.fromEntries(ast.fields.map((f) => [f.name.value, literal(f.value)]));
    default:
      throw new GraphQLError('JSON literals cannot hold variables', { extensions: { code: 'ERR_VALIDATION' } });
  }
};

/**
 * A JSON value (payloads as they were sent). Resolvers hold the JSON text: it is answered parsed,
 * so clients do not parse a string inside the GraphQL answer.
 */
export const JSONScalar = new GraphQLScalarType({
  name: 'JSON',
  description: 'Any JSON value',
  serialize(value) {
    if (typeof value !== 'string') return value;
    try {
      return JSON.parse(value) as unknown;
    } catch {
      return value;
    }
  },
  parseValue: (value) => value,
  parseLiteral: literal,
});
