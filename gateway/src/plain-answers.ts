import type { FastifyInstance } from 'fastify';

/**
 * Answers are sent as their handlers return them, with JSON.stringify, as for a route without a
 * response schema. Each route declares its 200 (`response`) for the OpenAPI document and the type
 * checker; Fastify would otherwise serialize with it (fast-json-stringify), which drops fields the
 * schema does not list, writes them in the schema's order and coerces values to its types, so an
 * answer would change with its documentation (and a drift would be hidden instead of caught by the
 * e2e answer check). Error answers have no schema here and were never serialized otherwise.
 */
export function sendAnswersAsReturned(app: FastifyInstance): void {
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
}
