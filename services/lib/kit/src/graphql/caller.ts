// Who the gateway forwards a GraphQL operation for. The gateway has checked its caller (the
// super-admin token, or a tenant administrator's session scoped to one tenant) and says which in
// this header on every subgraph request; the subgraph token proves the header comes from the
// gateway. Rules that depend on the caller (which fields a tenant administrator may set) live in
// the service that owns the data and read it from the resolver's context.

/** The header the gateway sets on every subgraph request. */
export const CALLER_HEADER = 'x-convo-caller';

/** `platform`: the operator (super-admin token); `tenant`: one tenant's administrator; `unknown`: no (valid) header. */
export type SubgraphCaller = { kind: 'platform' } | { kind: 'tenant'; tenantId: number } | { kind: 'unknown' };

export function callerHeaderValue(caller: { kind: 'platform' } | { kind: 'tenant'; tenantId: number }): string {
  return caller.kind === 'platform' ? 'platform' : `tenant:${caller.tenantId}`;
}

/** The header's value read back; anything else is `unknown`, which the rules treat as the least trusted caller. */
export function parseCallerHeader(value: string | string[] | undefined): SubgraphCaller {
  // A repeated header is not trusted either.
  const v = Array.isArray(value) ? undefined : value;
  if (v === 'platform') return { kind: 'platform' };
  const m = /^tenant:([1-9]\d{0,9})$/.exec(v ?? '');
  return m ? { kind: 'tenant', tenantId: Number(m[1]) } : { kind: 'unknown' };
}

/** The context every subgraph resolver receives. */
export interface SubgraphContext {
  caller: SubgraphCaller;
}

/** The caller of a resolver's context (`unknown` when the context has none, e.g. a test's own server). */
export const graphqlCallerOf = (context: unknown): SubgraphCaller =>
  (context as Partial<SubgraphContext> | undefined)?.caller ?? { kind: 'unknown' };
