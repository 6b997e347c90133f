import Fastify, { type FastifyInstance } from 'fastify';
import type { Authenticator } from '../src/auth';
import type { Clients } from '../src/clients';
import { externalApi } from '../src/routes/external';
import { tenantRoutes } from '../src/routes/tenant.routes';
import { webchatRoutes } from '../src/routes/webchat.routes';
import { whatsappRoutes } from '../src/routes/whatsapp.routes';
import { mediaRoutes } from '../src/routes/media.routes';
import { paymentWebhookRoutes } from '../src/routes/payment-webhooks.routes';
import { boundedValidatorCompiler } from '../src/validation/compiler';

type Schema = Record<string, any>;
const MAX_INT32 = 2_147_483_647;

/** Every unbounded string, array or number of a schema, by path (CONVENTIONS "Input bounds"). */
function unbounded(schema: Schema, path: string, out: string[]): void {
  if (!schema || typeof schema !== 'object') return;
  const types: string[] = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  const fixed = schema.enum !== undefined || schema.const !== undefined;
  if (types.includes('string') && !fixed && typeof schema.maxLength !== 'number') out.push(`${path}: string without maxLength`);
  if (types.includes('array') && typeof schema.maxItems !== 'number') out.push(`${path}: array without maxItems`);
  if ((types.includes('integer') || types.includes('number')) && !fixed && typeof schema.maximum !== 'number')
    out.push(`${path}: number without maximum`);
  if (types.includes('integer') && /(^|\.)(\w*Id|ticket|tenant|id)$/.test(path) && (schema.maximum > MAX_INT32 || !(schema.minimum >= 1))) {
    out.push(`${path}: id not a positive int32`);
  }
  for (const [k, sub] of Object.entries<Schema>(schema.properties ?? {})) unbounded(sub, path ? `${path}.${k}` : k, out);
  if (schema.items) unbounded(schema.items, `${path}[]`, out);
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) (schema[key] ?? []).forEach((s: Schema) => unbounded(s, path, out));
}

async function allRoutes(): Promise<{ app: FastifyInstance; routes: { url: string; method: string; schema: Schema }[] }> {
  const app = Fastify();
  app.setValidatorCompiler(boundedValidatorCompiler());
  const routes: { url: string; method: string; schema: Schema }[] = [];
  app.addHook('onRoute', (r) => {
    if (r.schema && !(r.schema as Schema).hide) routes.push({ url: r.url, method: String(r.method), schema: r.schema as Schema });
  });
  // Registration only: no route is called, so the dependencies are never used.
  const clients = {} as Clients;
  const auth = {
    external: async () => undefined,
    superAdmin: async () => undefined,
    watchRevocations: () => undefined,
    close: () => undefined,
  } as unknown as Authenticator;
  await app.register(tenantRoutes, { clients, auth });
  await app.register(whatsappRoutes, { clients, auth });
  await app.register(paymentWebhookRoutes, { clients });
  await app.register(externalApi, { prefix: '/v2/api/external/:apiId', clients, auth, mediaMaxBytes: 1, mediaBodyLimit: 1 });
  await app.register(mediaRoutes, { clients, secret: 'x' });
  await app.register(webchatRoutes, { clients, auth, secret: 'x' });
  await app.ready();
  return { app, routes };
}

describe('route schemas', () => {
  it('bound every string, array and number, and type ids as positive int32', async () => {
    const { app, routes } = await allRoutes();
    expect(routes.length).toBeGreaterThan(40);
    const problems: string[] = [];
    for (const { method, url, schema } of routes) {
      for (const part of ['body', 'querystring', 'params'] as const) {
        const found: string[] = [];
        unbounded(schema[part], '', found);
        problems.push(...found.map((f) => `${method} ${url} ${part} ${f}`));
      }
    }
    await app.close();
    expect(problems).toEqual([]);
  });
});
