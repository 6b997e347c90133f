import { validation } from '@convo/kit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { fieldOf } from '../errors';
import { nonFiniteNumberPath } from './compiler';

/**
 * JSON bodies with more values than any route takes are refused before they are parsed: parsing
 * is what costs memory (a 16 MB array of 4,000,000 short strings is ~200 MB of objects), and no
 * schema can refuse what has not been parsed yet. The scan counts separators outside strings in
 * one pass over the text; the body is then parsed by Fastify's own parser (prototype poisoning
 * refused as before). A number JSON cannot hold in a double (`1e400` is Infinity once parsed) is
 * refused here for every JSON body, a route with a schema or not (the compiler refuses it again
 * where coercion makes one out of text).
 */
export const MAX_JSON_VALUES = 20_000;

/** True when the JSON text has more than `limit` values (commas and colons outside strings). */
export function exceedsJsonValues(text: string, limit = MAX_JSON_VALUES): boolean {
  let separators = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x2c || c === 0x3a) {
      if (++separators > limit) return true;
    }
  }
  return false;
}

type Done = (err: Error | null, body?: unknown) => void;
export type JsonTextParser = (req: FastifyRequest, text: string, done: Done) => void;

/** Parses a JSON body's text under the rules above; a scope that reads the text its own way uses it too. */
export function boundedJsonParse(app: FastifyInstance): JsonTextParser {
  const parse = app.getDefaultJsonParser('error', 'error') as unknown as JsonTextParser;
  return (req, text, done) => {
    if (exceedsJsonValues(text)) {
      return done(
        validation('Request body has too many values', [{ field: '(body)', message: `must have at most ${MAX_JSON_VALUES} values` }]),
        undefined,
      );
    }
    parse(req, text, (err, value) => {
      if (err) return done(err, undefined);
      const infinite = nonFiniteNumberPath(value);
      if (infinite === undefined) return done(null, value);
      done(
        validation('Request body has a number out of range', [
          { field: fieldOf({ instancePath: infinite }), message: 'must be a finite number' },
        ]),
        undefined,
      );
    });
  };
}

export function installBoundedJsonParser(app: FastifyInstance): void {
  const parse = boundedJsonParse(app);
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => parse(req, body as string, done));
}
