import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Authenticator, Principal } from '../auth';
import type { Clients } from '../clients';
import { messageRoutes } from './messages.routes';
import { ticketRoutes } from './tickets.routes';

export const principalOf = (req: FastifyRequest): Principal => req.principal!;
export const security = [{ bearer: [] }];

/**
 * The external API: `{base_url}/v2/api/external/{apiId}/<operation>`, integration token only.
 * Each area registers its routes in its own file.
 */
export async function externalApi(app: FastifyInstance, deps: { clients: Clients; auth: Authenticator }) {
  app.addHook('onRequest', deps.auth.external);
  await app.register(ticketRoutes, deps);
  await app.register(messageRoutes, deps);
}
