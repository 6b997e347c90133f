import { bearerMatches, isServiceError, TtlCache, type proto } from '@convo/kit';
import * as grpc from '@grpc/grpc-js';
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Clients } from './clients';
import { envelope } from './errors';

export type Principal = proto.tenants.ApiPrincipal__Output;

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
  }
}

const bearer = (req: FastifyRequest): string | undefined => {
  const h = req.headers.authorization;
  return h?.startsWith('Bearer ') && h.length > 7 ? h.slice(7).trim() : undefined;
};

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/**
 * Integration tokens resolved through the tenants service, cached briefly: the gateway resolves a
 * token on every external call.
 */
export class Authenticator {
  private readonly cache: TtlCache<string, Principal>;

  constructor(
    private readonly clients: Clients,
    private readonly superAdminToken: string,
    cacheMs: number,
  ) {
    this.cache = new TtlCache(cacheMs);
  }

  /** onRequest hook of the external API: the token must belong to the integration in the path. */
  external = async (req: FastifyRequest<{ Params: { apiId?: string } }>, reply: FastifyReply) => {
    const token = bearer(req);
    if (!token) return reply.code(401).send(envelope('ERR_UNAUTHORIZED', 'Missing bearer token'));
    if (bearerMatches(`Bearer ${token}`, this.superAdminToken)) {
      return reply.code(403).send(envelope('ERR_FORBIDDEN', 'The super-admin token is not an integration token'));
    }
    const apiId = req.params.apiId ?? '';
    const tokenSha256 = sha256(token);
    req.principal = await this.cache.getOrLoad(`${apiId}:${tokenSha256}`, () =>
      this.clients.tenants.ResolveApiToken({ apiId, tokenSha256 }),
    );
  };

  /** onRequest hook of the tenant API: only the super-admin token; an integration token is 403. */
  superAdmin = async (req: FastifyRequest, reply: FastifyReply) => {
    const token = bearer(req);
    if (!token) return reply.code(401).send(envelope('ERR_UNAUTHORIZED', 'Missing bearer token'));
    if (bearerMatches(`Bearer ${token}`, this.superAdminToken)) return;
    const isIntegrationToken = await this.clients.tenants
      .ResolveApiToken({ apiId: '', tokenSha256: sha256(token) })
      .then(
        () => true,
        (err: unknown) => isServiceError(err) && err.code === grpc.status.PERMISSION_DENIED,
      );
    return isIntegrationToken
      ? reply.code(403).send(envelope('ERR_FORBIDDEN', 'Integration tokens may not use the tenant API'))
      : reply.code(401).send(envelope('ERR_UNAUTHORIZED', 'Unknown token'));
  };

  /** Drops cached resolutions, e.g. when an integration is deleted. */
  forget(): void {
    this.cache.clear();
  }
}
