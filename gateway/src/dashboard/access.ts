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
      await this.clients.tenants.CheckAdminSession({
        tenantId: session.tenantId,
        userId: session.userId,
        credentialsVersion: session.version,
      });
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
