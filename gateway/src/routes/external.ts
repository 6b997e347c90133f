import type { FastifyInstance } from 'fastify';
import type { Authenticator } from '../auth';
import type { Clients } from '../clients';
import { directoryRoutes } from './directory.routes';
import { interactiveRoutes } from './interactive.routes';
import { messageReadRoutes } from './message-reads.routes';
import { messageRoutes } from './messages.routes';
import { numberSendRoutes } from './number-sends.routes';
import { socialConfigRoutes } from './social-config.routes';
import { ticketActionRoutes } from './ticket-actions.routes';
import { ticketRoutes } from './tickets.routes';

/**
 * The external API: `{base_url}/v2/api/external/{apiId}/<operation>`, integration token only.
 * Each area registers its routes in its own file.
 */
export async function externalApi(
  app: FastifyInstance,
  deps: { clients: Clients; auth: Authenticator; mediaMaxBytes: number },
) {
  app.addHook('onRequest', deps.auth.external);
  // Only the dependencies go down: the options this plugin was registered with also carry its
  // `prefix`, which Fastify would apply a second time to each area.
  const { clients, auth, mediaMaxBytes } = deps;
  const areaDeps = { clients, auth, mediaMaxBytes };
  await app.register(ticketRoutes, areaDeps);
  await app.register(messageRoutes, areaDeps);
  await app.register(ticketActionRoutes, areaDeps);
  await app.register(messageReadRoutes, areaDeps);
  await app.register(interactiveRoutes, areaDeps);
  await app.register(socialConfigRoutes, areaDeps);
  // Routes beyond the seed that public clients call (README, "Routes beyond the seed").
  await app.register(numberSendRoutes, areaDeps);
  await app.register(directoryRoutes, areaDeps);
}
