import type { FastifyRequest } from 'fastify';
import type { Principal } from '../auth';
import type { Clients } from '../clients';

/** The caller the route's auth hook resolved (external routes: the integration; tenant routes: the super-admin). */
export const principalOf = (req: FastifyRequest): Principal => req.principal!;

/** The OpenAPI security requirement of every authenticated route: a bearer token. */
export const security = [{ bearer: [] }];

/**
 * A `userId` an integration sends must be a user of its own tenant (the ticket's tenant: another
 * tenant's ticket is not found anyway). The tenants service answers 404 ERR_USER_NOT_FOUND
 * otherwise, before anything is written.
 */
export async function checkUserOfTenant(clients: Clients, tenantId: number, userId: number | undefined): Promise<void> {
  if (userId !== undefined) await clients.tenants.GetUser({ tenantId, userId });
}
