import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ProviderRequest } from '@convo/test-support';

/**
 * A provider's request definitions (test/provider-specs/<family>.json) as a checker of recorded
 * requests: the operation the request's method and path name, its body against the operation's
 * request schema (ajv: JSON Schema 2020-12 for OpenAPI 3.1, draft-07 where the file says so), its
 * header parameters, and the credential its security requires. Errors that one of the file's
 * x-quirks explains (a rule the provider's own examples break) are not problems.
 *
 * One reading of Meta's OpenAPI is needed for its schemas to mean what they say: each message type
 * is `allOf: [BaseMessageProperties, { additionalProperties: false, … }]`, which in JSON Schema
 * refuses the base's own fields too; the closing is moved to the allOf (`unevaluatedProperties:
 * false`), which refuses a field neither part declares, as the authors meant.
 */

type Json = Record<string, unknown>;
interface Quirk {
  where: 'body' | 'headers';
  keyword?: string;
  instancePath?: string;
  value?: string;
  when?: Record<string, unknown>;
  warning?: boolean;
}
interface Supplement {
  when: { required: string[] };
  schema: Json;
}
interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema?: Json;
  $ref?: string;
}
interface Operation {
  parameters?: Parameter[];
  security?: Array<Record<string, string[]>>;
  requestBody?: { content?: Record<string, { schema?: Json }> };
}

export interface Check {
  /** "POST /path/{template}", '' when the spec has no operation for the request. */
  operation: string;
  problems: string[];
}

export interface ProviderSpec {
  check(req: ProviderRequest): Check;
}

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Moves `additionalProperties: false` from allOf parts to the allOf itself (see above). */
function closeAllOfs(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(closeAllOfs);
  if (!isObject(node)) return;
  Object.values(node).forEach(closeAllOfs);
  const parts = node.allOf;
  if (Array.isArray(parts) && parts.some((p) => isObject(p) && p.additionalProperties === false)) {
    node.allOf = parts.map((p) => (isObject(p) && p.additionalProperties === false ? { ...p, additionalProperties: undefined } : p));
    node.unevaluatedProperties = false;
  }
}

const pointerOf = (doc: unknown, pointer: string): unknown =>
  pointer
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<unknown>((at, key) => (isObject(at) || Array.isArray(at) ? (at as Json)[key] : undefined), doc);
const escape = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');

/** The path an error is about: its instancePath, and the property it names (missing, or not allowed). */
function errorPath(err: ErrorObject): string {
  const p = err.params as { missingProperty?: string; additionalProperty?: string; unevaluatedProperty?: string };
  const named = p.missingProperty ?? p.additionalProperty ?? p.unevaluatedProperty;
  return named === undefined ? err.instancePath : `${err.instancePath}/${named}`;
}

const undeclared = (err: ErrorObject) => err.keyword === 'additionalProperties' || err.keyword === 'unevaluatedProperties';

function explained(quirks: Quirk[], where: Quirk['where'], err: ErrorObject, data: unknown): boolean {
  const path = errorPath(err);
  return quirks.some(
    (q) =>
      q.where === where &&
      (q.warning ? undeclared(err) : !q.keyword || q.keyword === err.keyword) &&
      (!q.instancePath || new RegExp(q.instancePath).test(path)) &&
      (!q.value || new RegExp(q.value).test(String(pointerOf(data, err.instancePath)))) &&
      (!q.when || Object.entries(q.when).every(([pointer, value]) => pointerOf(data, pointer) === value)),
  );
}

export function loadProviderSpec(family: string): ProviderSpec {
  const doc = JSON.parse(readFileSync(join(__dirname, '..', 'provider-specs', `${family}.json`), 'utf8')) as Json;
  const draft07 = doc['x-schema-dialect'] === 'draft-07';
  if (!draft07) closeAllOfs(doc);
  const options = { strict: false, allErrors: true, validateFormats: false, validateSchema: false };
  const ajv = draft07 ? new Ajv(options) : new Ajv2020(options);
  ajv.addSchema(doc, family);
  const quirks = (doc['x-quirks'] ?? []) as Quirk[];
  const supplements = (doc['x-supplements'] ?? []) as Supplement[];
  const paths = doc.paths as Record<string, Record<string, Operation>>;
  const components = doc.components as Json;
  const resolve = <T>(node: T): T => (isObject(node) && typeof node.$ref === 'string' ? (pointerOf(doc, node.$ref.slice(1)) as T) : node);

  const validatorAt = (pointer: string): ValidateFunction => ajv.getSchema(`${family}#${pointer}`)!;

  /** The body's schema: a discriminated oneOf is narrowed to the part the body names, for readable errors. */
  function bodyValidator(path: string, method: string, body: unknown): ValidateFunction | undefined {
    const supplement = supplements.find((s) => isObject(body) && s.when.required.every((k) => k in body));
    if (supplement) return ajv.compile(supplement.schema);
    const at = `/paths/${escape(path)}/${method}/requestBody/content/application~1json/schema`;
    const schema = pointerOf(doc, at);
    if (!schema) return undefined;
    const target = resolve(schema) as Json;
    const discriminator = target.discriminator as { propertyName: string; mapping?: Record<string, string> } | undefined;
    const chosen = discriminator && isObject(body) ? discriminator.mapping?.[String(body[discriminator.propertyName])] : undefined;
    return chosen ? validatorAt(chosen.slice(1)) : validatorAt(at);
  }

  function security(op: Operation, headers: ProviderRequest['headers'], query: URLSearchParams): string[] {
    const alternatives = op.security ?? (doc.security as Operation['security']) ?? [];
    if (!alternatives.length) return [];
    const schemes = (components.securitySchemes ?? {}) as Record<string, { type: string; in?: string; name?: string; scheme?: string }>;
    const met = alternatives.some((alt) =>
      Object.keys(alt).every((name) => {
        const s = schemes[name];
        if (s?.type === 'http' && s.scheme === 'bearer') return /^Bearer \S/.test(String(headers.authorization ?? ''));
        if (s?.type === 'apiKey' && s.in === 'header') return !!headers[String(s.name).toLowerCase()];
        if (s?.type === 'apiKey' && s.in === 'query') return query.has(String(s.name));
        return true;
      }),
    );
    return met ? [] : [`credentials: none of ${alternatives.map((a) => Object.keys(a).join('+')).join(', ')}`];
  }

  function headerProblems(op: Operation, headers: ProviderRequest['headers']): string[] {
    return (op.parameters ?? [])
      .map(resolve)
      .filter((p) => p.in === 'header')
      .flatMap((p) => {
        const value = headers[p.name.toLowerCase()];
        if (value === undefined) return p.required ? [`headers /${p.name.toLowerCase()}: is required`] : [];
        const validate = ajv.compile(p.schema ?? {});
        if (validate(value)) return [];
        const data = { [p.name.toLowerCase()]: value };
        return (validate.errors ?? [])
          .map((e) => ({ ...e, instancePath: `/${p.name.toLowerCase()}${e.instancePath}` }))
          .filter((e) => !explained(quirks, 'headers', e, data))
          .map((e) => `headers ${e.instancePath}: ${e.message}`);
      });
  }

  return {
    check(req) {
      const url = new URL(req.url, 'http://provider');
      const method = req.method.toLowerCase();
      const match = Object.keys(paths).find(
        (p) =>
          paths[p][method] && new RegExp(`^${p.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`).test(url.pathname),
      );
      if (!match) return { operation: '', problems: [`${req.method} ${url.pathname} is no operation of ${family}`] };
      const op = paths[match][method];
      const problems = [...security(op, req.headers, url.searchParams), ...headerProblems(op, req.headers)];
      const validate = bodyValidator(match, method, req.body);
      if (validate && !validate(req.body)) {
        for (const err of validate.errors ?? []) {
          if (!explained(quirks, 'body', err, req.body))
            problems.push(`body ${errorPath(err) || '/'}: ${err.message}${err.params ? ` ${JSON.stringify(err.params)}` : ''}`);
        }
      }
      return { operation: `${req.method} ${match}`, problems };
    },
  };
}
