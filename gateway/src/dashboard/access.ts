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
import * as grpc from '@grpc/grpc-js';
import type { Authenticator } from '../auth';
import type { Clients } from '../clients';
import { isServiceError, TtlCache, unauthenticated } from '@convo/kit';
import { SessionSigner, type TenantSession } from './session';

/** Who is asking the GraphQL API: the platform (every tenant) or one tenant's administrator. */
export type GraphqlCaller = { kind: 'platform' } | { kind: 'tenant'; tenantId: number; userId: number };

declare module 'fastify' {
  interface FastifyRequest {
    graphqlCaller?: GraphqlCaller;
  }
}

/**
 * Whether a tenant administrator's session still stands, asked of the tenants service (which owns
 * the tenant's status, the user and its password) and remembered `ttlMs` per session on this
 * replica, the refusals included: a session ends at most `ttlMs` (plus one call) after its tenant
 * is set inactive, its administrator's password changes or its user is removed, on every replica,
 * with no state shared between them. Concurrent requests of one session share one lookup.
 */
export class SessionStatus {
  private readonly verdicts: TtlCache<string, true | grpc.ServiceError>;
  private readonly pending = new Map<string, Promise<true | grpc.ServiceError>>();

  constructor(
    private readonly clients: Pick<Clients, 'tenants'>,
    ttlMs: number,
  ) {
    this.verdicts = new TtlCache(ttlMs, 50_000, 'session_status');
  }

  /** Resolves when the session stands; throws the tenants service's refusal (401, or 403 ERR_TENANT_INACTIVE) otherwise. */
  async check(session: TenantSession): Promise<void> {
    const key = `${session.tenantId}:${session.userId}:${session.version}`;
    let verdict = this.verdicts.get(key);
    if (verdict === undefined) {
      let lookup = this.pending.get(key);
      if (!lookup) {
        lookup = this.lookup(session).finally(() => this.pending.delete(key));
        this.pending.set(key, lookup);
      }
      verdict = await lookup;
    }
    if (verdict !== true) throw verdict;
  }

  private async lookup(session: TenantSession): Promise<true | grpc.ServiceError> {
    try {
      await this.clients.tenants.CheckAdminSession({ tenantId: session.tenantId, userId: session.userId, credentialsVersion: session.version });
      this.verdicts.set(`${session.tenantId}:${session.userId}:${session.version}`, true);
      return true;
    } catch (err) {
      // A refusal is remembered like a pass; a failure to ask (the service away) is not, and answers as it is.
      if (!isServiceError(err) || (err.code !== grpc.status.UNAUTHENTICATED && err.code !== grpc.status.PERMISSION_DENIED)) throw err;
      this.verdicts.set(`${session.tenantId}:${session.userId}:${session.version}`, err);
      return err;
    }
  }
}

/**
 * onRequest hook of /graphql: the super-admin token → platform; a valid console session that still
 * stands → that tenant; an expired, forged or ended session → 401 (403 ERR_TENANT_INACTIVE for an
 * inactive tenant); anything else as the tenant API answers it (integration token 403, unknown 401).
 */
export function graphqlCallerHook(auth: Authenticator, sessions: SessionSigner, status: SessionStatus) {
  return async (req: FastifyRequest) => {
    const h = req.headers.authorization;
    const token = h && /^bearer /i.test(h) ? h.slice(7).trim() : '';
    if (SessionSigner.looksLikeSession(token)) {
      const session = sessions.verify(token);
      if (!session) throw unauthenticated('Session expired or invalid: sign in again');
      await status.check(session);
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
  kanbans: 'tenantId',
  reasons: 'tenantId',
  saveKanban: 'tenantId',
  saveReason: 'tenantId',
  deleteKanban: 'tenantId',
  deleteReason: 'tenantId',
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
