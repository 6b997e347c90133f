import 'reflect-metadata';
import { buildSchema, parse, type OperationDefinitionNode } from 'graphql';
import { Arg, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { SubgraphCaller } from '../../src/graphql/caller';
import { buildSubgraph, NoTenantData, TenantScoped } from '../../src/graphql/subgraph';
import { checkTenantScopes, tenantScopeTag, tenantScopeViolation } from '../../src/graphql/tenant-scope';

// The declaration as it reads in an SDL file (the supergraph's, or a subgraph's).
const TAG = 'directive @tag(name: String!) repeatable on FIELD_DEFINITION';
const schema = buildSchema(`${TAG}
  type Thing { id: Int! name: String }
  type Query {
    tenant(id: Int!): Thing @tag(name: "${tenantScopeTag.arg('id')}")
    tags(tenantId: Int!): [Thing!]! @tag(name: "${tenantScopeTag.arg('tenantId')}")
    queues(tenantId: Int! = 5): [Thing!]! @tag(name: "${tenantScopeTag.arg('tenantId')}")
    plans: [Thing!]! @tag(name: "${tenantScopeTag.none}")
    tenants: [Thing!]!
    labelled(tenantId: Int!): [Thing!]! @tag(name: "public")
  }
  type Mutation {
    createTag(tenantId: Int!, name: String!): Thing @tag(name: "${tenantScopeTag.arg('tenantId')}")
    createPlan(name: String!): Thing
  }`);

const TENANT_5: SubgraphCaller = { kind: 'tenant', tenantId: 5 };

function check(query: string, variables?: Record<string, unknown>, caller: SubgraphCaller = TENANT_5, on = schema) {
  const document = parse(query);
  const operation = document.definitions.find((d): d is OperationDefinitionNode => d.kind === 'OperationDefinition')!;
  return tenantScopeViolation(on, { document, operation, variables }, caller);
}

describe('tenantScopeViolation', () => {
  it("lets a tenant session ask its own tenant's fields, literal, by variable or by default", () => {
    expect(check('{ tenant(id: 5) { id } tags(tenantId: 5) { id } }')).toBeUndefined();
    expect(check('query($t: Int!) { tags(tenantId: $t) { id } }', { t: 5 })).toBeUndefined();
    expect(check('query($t: Int = 5) { tags(tenantId: $t) { id } }')).toBeUndefined();
    expect(check('{ queues { id } }')).toBeUndefined();
    expect(check('mutation($t: Int!) { createTag(tenantId: $t, name: "vip") { id } }', { t: 5 })).toBeUndefined();
  });

  it('lets it ask a field that declares no tenant data, and introspection', () => {
    expect(check('{ plans { id } __typename }')).toBeUndefined();
    expect(check('{ __schema { queryType { name } } __type(name: "Thing") { name } }')).toBeUndefined();
  });

  it('refuses another tenant, however the id is written', () => {
    expect(check('{ tenant(id: 6) { id } }')).toBe('tenant: this session reaches tenant 5 only');
    expect(check('query($t: Int!) { tags(tenantId: $t) { id } }', { t: 6 })).toMatch(/tenant 5 only/);
    expect(check('query($t: Int = 6) { tags(tenantId: $t) { id } }')).toMatch(/tenant 5 only/);
    // A variable sent overrides its default.
    expect(check('query($t: Int = 5) { tags(tenantId: $t) { id } }', { t: 6 })).toMatch(/tenant 5 only/);
    expect(check('{ queues(tenantId: 6) { id } }')).toMatch(/^queues: /);
    expect(check('{ tags(tenantId: null) { id } }')).toMatch(/tenant 5 only/);
    expect(check('mutation { createTag(tenantId: 6, name: "vip") { id } }')).toBe('createTag: this session reaches tenant 5 only');
  });

  it('finds the fields behind fragments, inline fragments and aliases', () => {
    expect(check('{ ...F } fragment F on Query { tags(tenantId: 6) { id } }')).toMatch(/^tags: .*tenant 5 only/);
    expect(check('{ ...F } fragment F on Query { ...G } fragment G on Query { tenant(id: 6) { id } }')).toMatch(/^tenant: /);
    expect(check('{ ... on Query { mine: tags(tenantId: 5) { id } theirs: tags(tenantId: 6) { id } } }')).toMatch(/^tags: .*tenant 5 only/);
    expect(check('{ ... { plans { id } } ...F } fragment F on Query { ... on Query { tenants { id } } }')).toBe(
      'tenants is for the platform administrator only',
    );
    expect(check('{ ...F ...F } fragment F on Query { tags(tenantId: 5) { id } }')).toBeUndefined();
  });

  it('refuses a root field without the declaration (another tag is not one), and one the schema does not have', () => {
    expect(check('{ tenants { id } }')).toBe('tenants is for the platform administrator only');
    expect(check('{ labelled(tenantId: 5) { id } }')).toMatch(/platform administrator only/);
    expect(check('mutation { createPlan(name: "x") { id } }')).toMatch(/^createPlan is for the platform/);
    expect(check('{ nowhere }')).toMatch(/^nowhere is for the platform/);
    expect(check('subscription { tags(tenantId: 5) { id } }')).toMatch(/^tags is for the platform/);
  });

  it("lets the platform (and a caller not named, whose limits are the resolvers') run anything", () => {
    for (const caller of [{ kind: 'platform' }, { kind: 'unknown' }] as const) {
      expect(check('{ tenants { id } tenant(id: 6) { id } }', {}, caller)).toBeUndefined();
      expect(check('mutation { createPlan(name: "x") { id } }', {}, caller)).toBeUndefined();
    }
  });
});

describe('checkTenantScopes', () => {
  it('refuses a declaration naming an argument the field lacks, or made twice', () => {
    expect(() =>
      checkTenantScopes(buildSchema(`${TAG} type Query { a(id: Int): Int @tag(name: "${tenantScopeTag.arg('tenantId')}") }`)),
    ).toThrow(/a: its tenant scope names an argument it does not have/);
    const twice = `${TAG} type Query { a(tenantId: Int): Int @tag(name: "${tenantScopeTag.arg('tenantId')}") @tag(name: "${tenantScopeTag.none}") }`;
    expect(() => checkTenantScopes(buildSchema(twice))).toThrow(/declares its tenant scope 2 times/);
    expect(() => checkTenantScopes(schema)).not.toThrow();
  });
});

@Resolver()
class ScopedResolver {
  @Query(() => Int, { nullable: true })
  @TenantScoped('tenantId')
  count(@Arg('tenantId', () => Int) tenantId: number): number {
    return tenantId;
  }

  @Query(() => [String])
  @NoTenantData()
  kinds(): string[] {
    return [];
  }

  @Mutation(() => Int)
  reset(): number {
    return 0;
  }
}

describe('the declaration on a type-graphql resolver', () => {
  it('is written to the SDL and read back from the subgraph schema', async () => {
    const { schema: subgraph, sdl } = await buildSubgraph({ resolvers: [ScopedResolver] });
    expect(sdl).toContain(`count(tenantId: Int!): Int @tag(name: "${tenantScopeTag.arg('tenantId')}")`);
    expect(check('{ count(tenantId: 5) kinds }', {}, TENANT_5, subgraph)).toBeUndefined();
    expect(check('{ count(tenantId: 6) }', {}, TENANT_5, subgraph)).toMatch(/tenant 5 only/);
    expect(check('mutation { reset }', {}, TENANT_5, subgraph)).toMatch(/platform administrator only/);
    // Federation's own fields: the gateway completes a checked operation with them.
    expect(check('{ _service { sdl } }', {}, TENANT_5, subgraph)).toBeUndefined();
  });
});
