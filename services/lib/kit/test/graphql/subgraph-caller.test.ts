import { buildSchema } from 'graphql';
import { callerHeaderValue, CALLER_HEADER, graphqlCallerOf, parseCallerHeader } from '../../src/graphql/caller';
import { startSubgraphServer } from '../../src/graphql/subgraph';
import { tenantScopeTag } from '../../src/graphql/tenant-scope';
import { createLogger } from '../../src/logger';

const TAG = 'directive @tag(name: String!) repeatable on FIELD_DEFINITION';

// The caller the gateway names to the subgraphs: written by the gateway, read back by each service.
describe('x-convo-caller', () => {
  it('reads back what the gateway writes', () => {
    expect(parseCallerHeader(callerHeaderValue({ kind: 'platform' }))).toEqual({ kind: 'platform' });
    expect(parseCallerHeader(callerHeaderValue({ kind: 'tenant', tenantId: 42 }))).toEqual({ kind: 'tenant', tenantId: 42 });
    expect(CALLER_HEADER).toBe('x-convo-caller');
  });

  it('reads anything else, a repeated header included, as unknown (the least trusted caller)', () => {
    for (const value of [
      undefined,
      '',
      'Platform',
      'tenant:',
      'tenant:0',
      'tenant:-1',
      'tenant:1.5',
      'tenant:12345678901',
      ' platform',
      ['platform', 'platform'],
    ]) {
      expect(parseCallerHeader(value)).toEqual({ kind: 'unknown' });
    }
  });

  it("is the context's caller on a subgraph's resolvers", async () => {
    const schema = buildSchema(`${TAG} type Query { caller: String @tag(name: "${tenantScopeTag.none}") }`);
    schema.getQueryType()!.getFields().caller.resolve = (_root, _args, context) => JSON.stringify(graphqlCallerOf(context));
    const token = 's'.repeat(32);
    const server = await startSubgraphServer(schema, 0, { token, log: createLogger('test', 'silent'), host: '127.0.0.1' });
    try {
      const ask = async (caller?: string) => {
        const res = await fetch(`http://127.0.0.1:${server.port}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, ...(caller && { [CALLER_HEADER]: caller }) },
          body: JSON.stringify({ query: '{ caller }' }),
        });
        return JSON.parse(((await res.json()) as { data: { caller: string } }).data.caller);
      };
      expect(await ask('tenant:7')).toEqual({ kind: 'tenant', tenantId: 7 });
      expect(await ask('platform')).toEqual({ kind: 'platform' });
      expect(await ask()).toEqual({ kind: 'unknown' });
    } finally {
      await server.close();
    }
  });
});

describe("a tenant session's reach, held by the subgraph too", () => {
  it("refuses a root field whose declared tenant is not the caller's, or that declares none; the platform and unnamed callers are not limited", async () => {
    const schema = buildSchema(
      `${TAG} type Query { echo(tenantId: Int!): Int @tag(name: "${tenantScopeTag.arg('tenantId')}") platformEcho(tenantId: Int!): Int }`,
    );
    const fields = schema.getQueryType()!.getFields();
    fields.echo.resolve = fields.platformEcho.resolve = (_root, args: { tenantId: number }) => args.tenantId;
    const token = 's'.repeat(32);
    const server = await startSubgraphServer(schema, 0, { token, log: createLogger('test', 'silent'), host: '127.0.0.1' });
    try {
      const ask = async (caller: string | undefined, tenantId: number, field = 'echo') => {
        const res = await fetch(`http://127.0.0.1:${server.port}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, ...(caller && { [CALLER_HEADER]: caller }) },
          body: JSON.stringify({ query: `query($t: Int!) { ${field}(tenantId: $t) }`, variables: { t: tenantId } }),
        });
        expect(res.status).toBe(caller?.startsWith('tenant:') && (field !== 'echo' || tenantId !== 7) ? 403 : 200);
        return (await res.json()) as {
          data?: Record<string, number> | null;
          errors?: Array<{ message: string; extensions: { code: string } }>;
        };
      };
      expect((await ask('tenant:7', 7)).data).toEqual({ echo: 7 });
      const refused = await ask('tenant:7', 8);
      expect(refused.errors?.[0]?.extensions.code).toBe('ERR_FORBIDDEN');
      expect(refused.data ?? null).toBeNull();
      expect((await ask('platform', 8)).data).toEqual({ echo: 8 });
      expect((await ask(undefined, 8)).data).toEqual({ echo: 8 });
      const platformOnly = await ask('tenant:7', 7, 'platformEcho');
      expect(platformOnly.errors?.[0]).toMatchObject({
        message: 'platformEcho is for the platform administrator only',
        extensions: { code: 'ERR_FORBIDDEN' },
      });
      expect((await ask('platform', 7, 'platformEcho')).data).toEqual({ platformEcho: 7 });
    } finally {
      await server.close();
    }
  });
});
