// A tenant administrator's session reaches its own tenant only. Which root fields it may ask, and
// which argument names the tenant, is declared in the schema, on each such field, with federation's
// `@tag` (which composition carries into the supergraph): the gateway checks an operation against
// the supergraph and every subgraph against its own schema, with the one function below, so the
// two cannot disagree. A root field without the declaration is the platform's (fail closed).
//
// This module loads only graphql-js: the gateway imports it without Apollo's subgraph.
import type { ApolloServerPlugin } from '@apollo/server';
import {
  GraphQLError,
  Kind,
  valueFromASTUntyped,
  type DocumentNode,
  type FieldNode,
  type GraphQLField,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import { forbidden } from '../errors';
import type { SubgraphCaller } from './caller';

const PREFIX = 'tenant-scope/';
const NONE = `${PREFIX}none`;
const ARG = `${PREFIX}arg/`;

/**
 * The `@tag` names of the declaration (tag names keep to letters, digits, `-`, `_` and `/`):
 * `arg(name)` — the field reaches the tenant its argument `name` names; `none` — the field holds
 * no tenant data (a catalogue every tenant reads alike).
 */
export const tenantScopeTag = {
  arg: (name: string): string => `${ARG}${name}`,
  none: NONE,
} as const;

/** What a root field declares: the argument naming its tenant, `null` for no tenant data, `undefined` for nothing (platform only). */
export type TenantScope = string | null | undefined;

/** The field's declaration read from its `@tag`s; throws on a declaration the field cannot hold (a build fails on it). */
export function tenantScopeOf(field: GraphQLField<unknown, unknown>): TenantScope {
  const tags = (field.astNode?.directives ?? [])
    .filter((d) => d.name.value === 'tag')
    .map((d) => d.arguments?.find((a) => a.name.value === 'name')?.value)
    .flatMap((v) => (v?.kind === Kind.STRING && v.value.startsWith(PREFIX) ? [v.value] : []));
  if (tags.length === 0) return undefined;
  if (tags.length > 1) throw new Error(`${field.name} declares its tenant scope ${tags.length} times`);
  const [tag] = tags;
  if (tag === NONE) return null;
  const arg = tag.startsWith(ARG) ? tag.slice(ARG.length) : '';
  if (!field.args.some((a) => a.name === arg))
    throw new Error(`${field.name}: its tenant scope names an argument it does not have (${tag})`);
  return arg;
}

/** Every root field's declaration checked once (at build and at start), so a wrong one fails there rather than on a request. */
export function checkTenantScopes(schema: GraphQLSchema): void {
  for (const root of [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()]) {
    for (const field of Object.values(root?.getFields() ?? {})) tenantScopeOf(field);
  }
}

/** Introspection answers about the schema, never a tenant's data (the gateway's config decides whether it is on). */
const META_FIELDS: readonly string[] = ['__typename', '__schema', '__type'];

/**
 * Federation's own root fields on a subgraph: the gateway asks them only to complete an operation
 * it has checked against the supergraph (entities it already reached), and only the gateway holds
 * the subgraph token.
 */
const FEDERATION_FIELDS: readonly string[] = ['_entities', '_service'];

/** The root fields an operation selects, through fragments and inline fragments (a fragment spread twice counted once). */
function rootFields(set: SelectionSetNode, document: DocumentNode, seen = new Set<string>()): FieldNode[] {
  return set.selections.flatMap((sel) => {
    if (sel.kind === Kind.FIELD) return [sel];
    if (sel.kind === Kind.INLINE_FRAGMENT) return rootFields(sel.selectionSet, document, seen);
    const name = sel.name.value;
    const fragment = document.definitions.find((d) => d.kind === Kind.FRAGMENT_DEFINITION && d.name.value === name);
    if (fragment?.kind !== Kind.FRAGMENT_DEFINITION || seen.has(name)) return [];
    seen.add(name);
    return rootFields(fragment.selectionSet, document, seen);
  });
}

/** An operation as the server resolved it: the document holds its fragments; variables as the client sent them. */
export interface ScopedOperation {
  document: DocumentNode;
  operation: OperationDefinitionNode;
  variables?: Record<string, unknown>;
}

/**
 * Why `caller` may not run the operation against `schema`; undefined when it may. Only a tenant
 * caller is limited: each root field must declare its scope, and the argument it names must be the
 * caller's tenant (from a literal, a variable, or either's default).
 */
export function tenantScopeViolation(
  schema: GraphQLSchema,
  { document, operation, variables = {} }: ScopedOperation,
  caller: SubgraphCaller,
): string | undefined {
  if (caller.kind !== 'tenant') return undefined;
  const root = schema.getRootType(operation.operation);
  // A variable left out takes its declared default, as execution would.
  const values: Record<string, unknown> = {};
  for (const def of operation.variableDefinitions ?? []) {
    if (def.defaultValue) values[def.variable.name.value] = valueFromASTUntyped(def.defaultValue);
  }
  Object.assign(values, variables);
  for (const node of rootFields(operation.selectionSet, document)) {
    const name = node.name.value;
    if (META_FIELDS.includes(name) || FEDERATION_FIELDS.includes(name)) continue;
    const field = root?.getFields()[name];
    const scope = field && tenantScopeOf(field);
    if (!field || scope === undefined) return `${name} is for the platform administrator only`;
    if (scope === null) continue;
    const arg = node.arguments?.find((a) => a.name.value === scope);
    const value = arg ? valueFromASTUntyped(arg.value, values) : field.args.find((a) => a.name === scope)?.defaultValue;
    if (Number(value) !== caller.tenantId) return `${name}: this session reaches tenant ${caller.tenantId} only`;
  }
  return undefined;
}

/**
 * Refuses (403 `ERR_FORBIDDEN`) an operation of a tenant session that reaches beyond its tenant,
 * once the operation is resolved and before anything runs: at the gateway against the supergraph,
 * before any subgraph is asked; on each subgraph against its own schema, whoever forwards it.
 */
export function tenantScopePlugin<C extends { caller: SubgraphCaller }>(schema: GraphQLSchema): ApolloServerPlugin<C> {
  checkTenantScopes(schema);
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ contextValue, operation, document, request }) {
          if (!operation) return;
          const why = tenantScopeViolation(schema, { document, operation, variables: request.variables }, contextValue.caller);
          if (why)
            throw new GraphQLError(why, { originalError: forbidden(why), extensions: { code: 'ERR_FORBIDDEN', http: { status: 403 } } });
        },
      };
    },
  };
}
