import type { SwaggerOptions } from '@fastify/swagger';
import { seedPathOf } from '../routes/segments';
import { ErrorEnvelope } from '../schemas/envelopes';

type Operation = {
  operationId?: string;
  summary?: string;
  tags?: string[];
  responses?: Record<string, unknown>;
  security?: unknown[];
  description?: string;
  'x-alias-of'?: string;
};
type Doc = { paths?: Record<string, Record<string, Operation>>; components?: Record<string, unknown> };

const EXTERNAL_ROOT = '/v2/api/external/{apiId}';
/** Not the REST API: GraphQL (its own schema), probes, metrics. */
const HIDDEN = [/^\/graphql/, /^\/healthz$/, /^\/readyz$/, /^\/metrics$/];
const camel = (s: string) => s.replace(/[-_]+([a-zA-Z0-9])/g, (_, c: string) => c.toUpperCase());
const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/**
 * The seed's operation name: the path under the root without its parameters, in camel case
 * (`createTicket`, `sendInteractiveSocialBQuickReply`, `ticketPauseStart`; `{root}/` is
 * `sendToNumber`). The path's only method keeps the name; beside another method, GET, PUT and
 * DELETE are prefixed (`getWebchatMessages`, `putWhatsapp`).
 */
export function operationIdOf(method: string, path: string, alone = true): string {
  const parts = path
    .replace(EXTERNAL_ROOT, '')
    .split('/')
    .filter((p) => p && !p.startsWith('{'));
  const name = parts.map((p, i) => (i ? cap(camel(p)) : camel(p))).join('') || 'sendToNumber';
  return method === 'post' || (method === 'get' && alone) ? name : `${method}${cap(name)}`;
}

const errorResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
});
/** The errors every operation can answer (docs/api/README.md, "Errors"); 4xx/5xx beyond them are the same envelope. */
const ERROR_RESPONSES = {
  ValidationError: errorResponse('ERR_VALIDATION or a seed code: the request is invalid; `details` names every field'),
  Unauthorized: errorResponse('ERR_UNAUTHORIZED: no token or an unknown one'),
  Forbidden: errorResponse('ERR_FORBIDDEN: a token of the wrong kind or integration'),
  NotFound: errorResponse('ERR_…_NOT_FOUND: absent, or of another tenant'),
  RateLimited: errorResponse('ERR_RATE_LIMITED, with Retry-After'),
  Unavailable: errorResponse(
    'ERR_UNAVAILABLE: a service is down, with Retry-After: 5; ERR_BUSY: the gateway holds as much request body as it may (BODY_BUDGET_BYTES), the body was not read, with Retry-After: 2',
  ),
  Error: errorResponse('Any other error, same envelope'),
};
const ERROR_REFS = {
  '400': 'ValidationError',
  '401': 'Unauthorized',
  '403': 'Forbidden',
  '404': 'NotFound',
  '429': 'RateLimited',
  '503': 'Unavailable',
  default: 'Error',
};

type Schemas = Record<string, unknown>;

/**
 * The schema with each part that has a `$id` moved to `components.schemas[$id]` (without it) and
 * replaced by a `$ref` there: the records and envelopes the routes' answers are made of
 * (schemas/envelopes.ts) become named components, each written once however many routes answer it.
 */
export function namedToRefs(node: unknown, schemas: Schemas): unknown {
  if (Array.isArray(node)) return node.map((n) => namedToRefs(n, schemas));
  if (!node || typeof node !== 'object') return node;
  // Examples are data, not schemas.
  const { $id, ...rest } = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, k === 'examples' ? v : namedToRefs(v, schemas)]));
  if (typeof $id !== 'string') return $id === undefined ? rest : { $id, ...rest };
  if (schemas[$id] !== undefined && JSON.stringify(schemas[$id]) !== JSON.stringify(rest))
    throw new Error(`Two different answer schemas are named ${$id}`);
  schemas[$id] = rest;
  return { $ref: `#/components/schemas/${$id}` };
}

/** Operation ids, tags, aliases' summaries and error answers, set once here for every route; the rest is each route's schema. */
export function completeDocument(doc: Doc): Doc {
  const paths: NonNullable<Doc['paths']> = {};
  for (const [rawPath, item] of Object.entries(doc.paths ?? {})) {
    if (HIDDEN.some((re) => re.test(rawPath))) continue;
    // `POST {root}` is registered as `{root}/`; both answer, the document names it without the slash.
    const path = rawPath.length > 1 ? rawPath.replace(/\/$/, '') : rawPath;
    paths[path] = item;
    for (const [method, op] of Object.entries(item)) {
      if (typeof op !== 'object' || !op || Array.isArray(op)) continue;
      op.operationId ??= operationIdOf(method, path, Object.keys(item).length === 1);
      // An engine's real name beside the seed's segment (routes/segments.ts): the same route.
      const seedPath = seedPathOf(path);
      if (seedPath) {
        op['x-alias-of'] = seedPath;
        op.summary ??= doc.paths?.[seedPath]?.[method]?.summary;
        op.description = `Alias of \`${seedPath}\` (the engine's real name in place of the seed's segment): the same schema and behaviour.`;
      }
      op.tags = op.tags?.length ? op.tags : [path.startsWith(EXTERNAL_ROOT) ? 'external' : 'platform'];
      // The route's `response: { 200: … }`; @fastify/swagger writes "Default Response" where its schema has no description.
      const success = (op.responses?.['200'] ?? {}) as { description?: string };
      op.responses = {
        '200': {
          ...success,
          description: !success.description || success.description === 'Default Response' ? 'Success' : success.description,
        },
        ...Object.fromEntries(Object.entries(ERROR_REFS).map(([status, name]) => [status, { $ref: `#/components/responses/${name}` }])),
      };
    }
  }
  const schemas: Schemas = { ...(doc.components?.schemas as Schemas) };
  namedToRefs(ErrorEnvelope, schemas);
  return { ...doc, paths, components: { ...doc.components, schemas, responses: ERROR_RESPONSES } };
}

/** The document served at /docs/json: OpenAPI 3.1 from the route schemas, completed above. */
export const SWAGGER_OPTIONS: SwaggerOptions = {
  openapi: {
    openapi: '3.1.0',
    info: {
      title: 'Conversation messaging API',
      version: '2.0.0',
      description: 'External (v2) and tenant APIs. See README.md and docs/api/.',
    },
    // The gateway serving this document; paths are absolute from its root.
    servers: [{ url: '/', description: 'This gateway' }],
    components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
  },
  // Each answer schema's named parts go to components.schemas as the route is documented.
  transform: (input) => {
    const { schema, url } = input;
    const response = (schema as { response?: Schemas } | undefined)?.response;
    if (!response || !('openapiObject' in input)) return { schema, url };
    const components = (input.openapiObject.components ??= {}) as { schemas?: Schemas };
    const schemas = (components.schemas ??= {});
    return { schema: { ...schema, response: namedToRefs(response, schemas) as Schemas }, url };
  },
  transformObject: (input) => completeDocument(('openapiObject' in input ? input.openapiObject : {}) as Doc) as never,
};
