import type { ApolloServerPlugin } from '@apollo/server';
import {
  GraphQLError,
  Kind,
  valueFromASTUntyped,
  type FieldNode,
  type FragmentDefinitionNode,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import type { FastifyRequest } from 'fastify';
import type { Authenticator } from '../auth';
import { unauthenticated } from '@convo/kit';
import { SessionSigner } from './session';

/** Who is asking the GraphQL API: the platform (every tenant) or one tenant's administrator. */
export type GraphqlCaller = { kind: 'platform' } | { kind: 'tenant'; tenantId: number; userId: number };

declare module 'fastify' {
  interface FastifyRequest {
    graphqlCaller?: GraphqlCaller;
  }
}

/**
 * onRequest hook of /graphql: the super-admin token → platform; a valid console session → that
 * tenant; an expired or forged session → 401; anything else as the tenant API answers it
 * (integration token 403, unknown 401).
 */
export function graphqlCallerHook(auth: Authenticator, sessions: SessionSigner) {
  return async (req: FastifyRequest) => {
    const h = req.headers.authorization;
    const token = h && /^bearer /i.test(h) ? h.slice(7).trim() : '';
    if (SessionSigner.looksLikeSession(token)) {
      const session = sessions.verify(token);
      if (!session) throw unauthenticated('Session expired or invalid: sign in again');
      req.graphqlCaller = { kind: 'tenant', tenantId: session.tenantId, userId: session.userId };
      return;
    }
    await auth.superAdmin(req);
    req.graphqlCaller = { kind: 'platform' };
  };
}

/**
 * Root fields a tenant administrator may ask, and the argument that names the tenant. The list
 * fails closed: a root field missing here (a new one included) is refused to tenant sessions.
 */
export const TENANT_SCOPED_FIELDS: Record<string, string | null> = {
  tenant: 'id',
  channels: 'tenantId',
  ticket: 'tenantId',
  tickets: 'tenantId',
  ticketCounts: 'tenantId',
  closeTicket: 'tenantId',
  reopenTicket: 'tenantId',
  moveTicket: 'tenantId',
  assignTicket: 'tenantId',
  addTicketTags: 'tenantId',
  removeTicketTag: 'tenantId',
  createIntegration: 'tenantId',
  revokeIntegration: 'tenantId',
  rotateWebhookSecret: 'tenantId',
  createChannel: 'tenantId',
  updateChannel: 'tenantId',
  tags: 'tenantId',
  queues: 'tenantId',
  createTag: 'tenantId',
  createQueue: 'tenantId',
  message: 'tenantId',
  webhookDeliveries: 'tenantId',
  webhookDelivery: 'tenantId',
  deliveryHealth: 'tenantId',
  replayWebhookDelivery: 'tenantId',
  channelProfile: 'tenantId',
  // Catalogues without tenant data.
  plans: null,
  driverKinds: null,
  __typename: null,
  __schema: null,
  __type: null,
};

function rootFields(set: SelectionSetNode, fragments: Map<string, FragmentDefinitionNode>, seen = new Set<string>()): FieldNode[] {
  return set.selections.flatMap((sel) => {
    if (sel.kind === Kind.FIELD) return [sel];
    if (sel.kind === Kind.INLINE_FRAGMENT) return rootFields(sel.selectionSet, fragments, seen);
    const name = sel.name.value;
    const fragment = fragments.get(name);
    if (!fragment || seen.has(name)) return [];
    seen.add(name);
    return rootFields(fragment.selectionSet, fragments, seen);
  });
}

/** Why a tenant session may not run this operation; undefined when it may. */
export function tenantScopeViolation(
  operation: OperationDefinitionNode,
  fragments: Map<string, FragmentDefinitionNode>,
  variables: Record<string, unknown>,
  tenantId: number,
): string | undefined {
  for (const field of rootFields(operation.selectionSet, fragments)) {
    const name = field.name.value;
    if (!(name in TENANT_SCOPED_FIELDS)) return `${name} is for the platform administrator only`;
    const argName = TENANT_SCOPED_FIELDS[name];
    if (!argName) continue;
    const arg = field.arguments?.find((a) => a.name.value === argName);
    const value = arg ? valueFromASTUntyped(arg.value, variables) : undefined;
    if (Number(value) !== tenantId) return `${name}: this session reaches tenant ${tenantId} only`;
  }
  return undefined;
}

/** Refuses, before any subgraph is asked, an operation of a tenant session that reaches beyond its tenant. */
export function tenantScopePlugin<C extends { caller: GraphqlCaller }>(): ApolloServerPlugin<C> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ contextValue, operation, document, request }) {
          const caller = contextValue.caller;
          if (caller.kind !== 'tenant' || !operation) return;
          const fragments = new Map(
            document.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((d) => [d.name.value, d]),
          );
          const why = tenantScopeViolation(operation, fragments, request.variables ?? {}, caller.tenantId);
          if (why) throw new GraphQLError(why, { extensions: { code: 'ERR_FORBIDDEN', http: { status: 403 } } });
        },
      };
    },
  };
}
