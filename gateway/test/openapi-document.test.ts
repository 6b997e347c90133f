import swagger from '@fastify/swagger';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import Ajv2020 from 'ajv/dist/2020';
import Fastify from 'fastify';
import type { Authenticator } from '../src/auth';
import type { Clients } from '../src/clients';
import { SWAGGER_OPTIONS } from '../src/openapi/document';
import { sendAnswersAsReturned } from '../src/plain-answers';
import { externalApi } from '../src/routes/external';
import { inboundRoutes } from '../src/routes/inbound.routes';
import { mediaRoutes } from '../src/routes/media.routes';
import { paymentWebhookRoutes } from '../src/routes/payment-webhooks.routes';
import { tenantRoutes } from '../src/routes/tenant.routes';
import { webchatRoutes } from '../src/routes/webchat.routes';
import { whatsappRoutes } from '../src/routes/whatsapp.routes';
import { boundedValidatorCompiler } from '../src/validation/compiler';

type Json = Record<string, any>;

/** The document /docs/json serves, from the same routes and options as the gateway (no route is called). */
async function openapiDocument(): Promise<Json> {
  const app = Fastify();
  app.setValidatorCompiler(boundedValidatorCompiler());
  sendAnswersAsReturned(app);
  const clients = {} as Clients;
  const auth = {
    external: async () => undefined,
    superAdmin: async () => undefined,
    watchRevocations: () => undefined,
    close: () => undefined,
  } as unknown as Authenticator;
  await app.register(swagger, SWAGGER_OPTIONS);
  await app.register(tenantRoutes, { clients, auth });
  await app.register(whatsappRoutes, { clients, auth });
  await app.register(paymentWebhookRoutes, { clients });
  await app.register(inboundRoutes, { clients, metaVerifyToken: undefined, metaAppSecret: undefined } as never);
  await app.register(externalApi, { prefix: '/v2/api/external/:apiId', clients, auth, mediaMaxBytes: 1, mediaBodyLimit: 1 });
  await app.register(mediaRoutes, { clients, secret: 'x' });
  await app.register(webchatRoutes, { clients, auth, secret: 'x' });
  await app.ready();
  const doc = JSON.parse(JSON.stringify(app.swagger())) as Json;
  await app.close();
  return doc;
}

/** Every `example` / `examples` in the document (of a schema, a parameter or a media type), with the schema it illustrates. */
function examplesOf(node: unknown, path: string, out: Array<{ path: string; schema: Json; example: unknown }>): void {
  if (!node || typeof node !== 'object') return;
  if (Array.isArray(node)) return node.forEach((n, i) => examplesOf(n, `${path}/${i}`, out));
  const o = node as Json;
  if (typeof o.type === 'string' || Array.isArray(o.type) || o.properties || o.$ref || o.oneOf || o.anyOf) {
    if (Array.isArray(o.examples))
      o.examples.forEach((example: unknown, i: number) => out.push({ path: `${path}/examples/${i}`, schema: o, example }));
    if ('example' in o) out.push({ path: `${path}/example`, schema: o, example: o.example });
  }
  // A parameter or a media type: its example(s) against its `schema` (examples there are a map of {value}).
  if (o.schema && typeof o.schema === 'object') {
    if ('example' in o) out.push({ path: `${path}/example`, schema: o.schema, example: o.example });
    if (o.examples && typeof o.examples === 'object' && !Array.isArray(o.examples)) {
      for (const [name, ex] of Object.entries<Json>(o.examples))
        if (ex && 'value' in ex) out.push({ path: `${path}/examples/${name}`, schema: o.schema, example: ex.value });
    }
  }
  for (const [k, v] of Object.entries(o)) if (k !== 'examples' && k !== 'example') examplesOf(v, `${path}/${k}`, out);
}

describe('the OpenAPI document', () => {
  let doc: Json;
  beforeAll(async () => {
    doc = await openapiDocument();
  });

  it("passes Redocly's recommended rules with no error", async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source: JSON.stringify(doc), absoluteRef: '/openapi.json', config });
    const errors = problems.filter((p) => p.severity === 'error').map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`);
    expect(errors).toEqual([]);
  });

  it("gives every operation its route's summary and a named 200 schema", () => {
    const ops = Object.entries<Json>(doc.paths).flatMap(([path, item]) =>
      Object.entries<Json>(item).map(([method, op]) => ({ at: `${method} ${path}`, op })),
    );
    expect(ops.length).toBeGreaterThan(60);
    const missing = ops.filter(({ op }) => {
      const content = op.responses['200'].content ?? {};
      const ref = content['application/json']?.schema?.$ref as string | undefined;
      const named = !!ref && !!doc.components.schemas[ref.replace('#/components/schemas/', '')];
      return !op.summary || !(named || content['text/plain']);
    });
    expect(missing.map(({ at }) => at)).toEqual([]);
    // No bearer token opens the providers' webhooks and a new web chat visitor: each says so.
    const open = ops.filter(({ op }) => Array.isArray(op.security) && op.security.length === 0).map(({ op }) => op.operationId);
    expect(open.sort()).toEqual(['getWebhooksMeta', 'webchatVisitors', 'webhooksEngine', 'webhooksMeta', 'webhooksPayments']);
  });

  it('has no example that contradicts its own schema', () => {
    const found: Array<{ path: string; schema: Json; example: unknown }> = [];
    examplesOf(doc, '#', found);
    expect(found.length).toBeGreaterThan(5);
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    ajv.addSchema({ $id: 'openapi', components: doc.components });
    const wrong: string[] = [];
    for (const { path, schema, example } of found) {
      const { examples: _e, example: _x, ...rest } = schema;
      const resolved = JSON.parse(JSON.stringify(rest).replace(/"#\/components\//g, '"openapi#/components/'));
      const validate = ajv.compile(resolved);
      if (!validate(example)) wrong.push(`${path}: ${ajv.errorsText(validate.errors)}`);
    }
    expect(wrong).toEqual([]);
  });
});
