import { AjvCompiler } from '@fastify/ajv-compiler';
import type { FastifySchemaCompiler } from 'fastify';
import { rulesKeyword } from './rules';

/**
 * The gateway's one validation path: the route's schema, compiled twice.
 *
 * A fail-fast validator (Ajv `allErrors: false`) runs first, so a huge body stops at its first
 * fault (a 4,000,000-element array fails on `maxItems` before any element is looked at). Only when
 * it fails on a small request is the every-error validator run, so that an integrator still sees
 * every field error at once; the error handler keeps at most 20 of them.
 *
 * Ajv's type coercion turns `true` into 1 and 1 into `true`; CONVENTIONS ("Input bounds") wants a
 * JSON boolean to be a boolean only, so a guard refuses those two crossings before Ajv coerces.
 * Strings stay coercible: `"42"` for an integer, `"true"` for a boolean (multipart fields are text).
 *
 * Cross-field rules are part of the schema too, as the keyword `x-rules` (rules.ts).
 *
 * A number is finite or it is refused (400 `ERR_VALIDATION` naming the field), wherever it sits:
 * JSON turns `1e400` into Infinity, and Ajv's coercion turns the text `"1e400"` or `"Infinity"`
 * (a JSON string, a multipart field, a query parameter) into Infinity after its own checks, so
 * `maximum` never sees it and a database refuses it later (a 500). Ajv's `strictNumbers` refuses
 * what arrives non-finite; a walk of the validated value refuses what coercion made non-finite.
 */

const BASE_OPTIONS = { coerceTypes: 'array' as const, removeAdditional: true, useDefaults: true, strictNumbers: true };
// eslint-disable-next-line @typescript-eslint/no-require-imports
const plugins = [require('ajv-formats'), rulesKeyword];

/** Above this many JSON nodes a failing request gets the fail-fast error only. */
export const FULL_REPORT_MAX_NODES = 2_000;

export interface AjvIssue {
  instancePath: string;
  schemaPath: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string;
}

type Validate = ((data: unknown, ctx?: object) => boolean) & { errors?: AjvIssue[] | null };
type Schema = Record<string, unknown>;

/** True when `data` has at most `limit` nodes (objects, arrays and scalars), counted lazily. */
export function hasAtMostNodes(data: unknown, limit: number): boolean {
  const stack: unknown[] = [data];
  let seen = 0;
  while (stack.length) {
    const node = stack.pop();
    if (++seen > limit) return false;
    if (Array.isArray(node)) {
      if (seen + node.length > limit) return false;
      stack.push(...node);
    } else if (node && typeof node === 'object') {
      const values = Object.values(node as object);
      if (seen + values.length > limit) return false;
      stack.push(...values);
    }
  }
  return true;
}

/** The path of the first number in `data` that is not finite (Infinity, NaN), walked iteratively. */
export function nonFiniteNumberPath(data: unknown): string | undefined {
  const stack: Array<[unknown, string]> = [[data, '']];
  while (stack.length) {
    const [node, path] = stack.pop()!;
    if (typeof node === 'number') {
      if (!Number.isFinite(node)) return path;
    } else if (Array.isArray(node)) {
      for (let i = node.length - 1; i >= 0; i--) stack.push([node[i], `${path}/${i}`]);
    } else if (node && typeof node === 'object' && !Buffer.isBuffer(node)) {
      for (const [k, v] of Object.entries(node as object)) stack.push([v, `${path}/${k}`]);
    }
  }
  return undefined;
}

const notFinite = (instancePath: string): AjvIssue => ({
  instancePath,
  schemaPath: '#/type',
  keyword: 'type',
  params: {},
  message: 'must be a finite number',
});

const typesOf = (schema: Schema): string[] => {
  const t = schema.type;
  return Array.isArray(t) ? (t as string[]) : typeof t === 'string' ? [t] : [];
};

/** The first boolean-for-number or number-for-boolean crossing, walking data along its schema. */
export function strictScalarIssue(schema: Schema, data: unknown, path = ''): AjvIssue | undefined {
  const types = typesOf(schema);
  const numeric = types.includes('integer') || types.includes('number');
  if (typeof data === 'boolean' && numeric && !types.includes('boolean')) {
    return {
      instancePath: path,
      schemaPath: '#/type',
      keyword: 'type',
      params: {},
      message: `must be ${types.includes('integer') ? 'integer' : 'number'}`,
    };
  }
  if (typeof data === 'number' && types.includes('boolean') && !numeric) {
    return { instancePath: path, schemaPath: '#/type', keyword: 'type', params: {}, message: 'must be boolean' };
  }
  if (Array.isArray(data)) {
    const items = schema.items as Schema | undefined;
    const max = typeof schema.maxItems === 'number' ? schema.maxItems : 0;
    // Only lists the schema accepts by length: a longer one fails on maxItems anyway.
    if (!items || typeof items !== 'object' || data.length > max) return undefined;
    for (let i = 0; i < data.length; i++) {
      const issue = strictScalarIssue(items, data[i], `${path}/${i}`);
      if (issue) return issue;
    }
    return undefined;
  }
  if (data && typeof data === 'object') {
    const props = schema.properties as Record<string, Schema> | undefined;
    if (!props) return undefined;
    for (const [key, sub] of Object.entries(props)) {
      const value = (data as Record<string, unknown>)[key];
      if (value === undefined || !sub || typeof sub !== 'object') continue;
      const issue = strictScalarIssue(sub, value, `${path}/${key}`);
      if (issue) return issue;
    }
  }
  return undefined;
}

/** A Fastify validator compiler implementing the rules above. */
export function boundedValidatorCompiler(): FastifySchemaCompiler<Schema> {
  const factory = AjvCompiler();
  const fast = factory({}, { customOptions: { ...BASE_OPTIONS, allErrors: false }, plugins } as never);
  const full = factory({}, { customOptions: { ...BASE_OPTIONS, allErrors: true }, plugins } as never);
  return (route) => {
    const failFast = fast(route as never) as unknown as Validate;
    let everyError: Validate | undefined;
    const schema = route.schema;
    return (data: unknown) => {
      const strict = strictScalarIssue(schema, data);
      if (strict) return { error: [strict] as never };
      // Ajv replaces a coerced root value through its parent.
      const holder = { value: data };
      const ctx = { parentData: holder, parentDataProperty: 'value' };
      if (failFast(data, ctx)) {
        const infinite = nonFiniteNumberPath(holder.value);
        return infinite === undefined ? { value: holder.value } : { error: [notFinite(infinite)] as never };
      }
      if (!hasAtMostNodes(holder.value, FULL_REPORT_MAX_NODES)) return { error: failFast.errors as never };
      everyError ??= full(route as never) as unknown as Validate;
      everyError(holder.value, ctx);
      return { error: (everyError.errors ?? failFast.errors) as never };
    };
  };
}
