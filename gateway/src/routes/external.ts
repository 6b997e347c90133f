import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Authenticator } from '../auth';
import type { Clients } from '../clients';
import type { Limit } from '../config';
import type { RateLimits } from '../rate-limits';
import { channelContactRoutes } from './channels-contacts.routes';
import { conversationChangeRoutes } from './conversation-changes.routes';
import { crmRoutes } from './crm.routes';
import { directoryRoutes } from './directory.routes';
import { interactiveRoutes } from './interactive.routes';
import { messageReadRoutes } from './message-reads.routes';
import { messageRoutes } from './messages.routes';
import { numberSendRoutes } from './number-sends.routes';
import { socialConfigRoutes } from './social-config.routes';
import { templateRoutes } from './templates.routes';
import { ticketActionRoutes } from './ticket-actions.routes';
import { ticketRoutes } from './tickets.routes';

/**
 * The external API: `{base_url}/v2/api/external/{apiId}/<operation>`, integration token only.
 * Each area registers its routes in its own file.
 */
export async function externalApi(
  app: FastifyInstance,
  deps: { clients: Clients; auth: Authenticator; mediaMaxBytes: number; mediaBodyLimit: number; rateLimits?: RateLimits },
) {
  app.addHook('onRequest', deps.auth.external);
  // Charged once the caller is known, before its body is read.
  const { rateLimits } = deps;
  if (rateLimits) {
    const { perToken, perTenant } = rateLimits.config;
    // The warm-up's requests (warmup.ts) are charged as any other, but to a key of this process
    // alone and under a limit they cannot spend: at the default limits most of them were refused
    // 429 and never reached messaging, and with Redis the replicas warming up at once shared one count.
    const warmup: [Limit, string][] = [[{ max: Number.MAX_SAFE_INTEGER, windowMs: perToken.windowMs }, `warm-up:${randomUUID()}`]];
    app.addHook('onRequest', async (req, reply) => {
      const p = req.principal;
      if (!p) return;
      const keys: [Limit, string][] = p.warmup
        ? warmup
        : [
            [perToken, `api:${p.apiId}`],
            [perTenant, `tenant:${p.tenantId}`],
          ];
      if (!(await rateLimits.charge(req, reply, keys))) return reply;
    });
  }
  // Only the dependencies go down: the options this plugin was registered with also carry its
  // `prefix`, which Fastify would apply a second time to each area.
  const { clients, auth, mediaMaxBytes, mediaBodyLimit } = deps;
  const areaDeps = { clients, auth, mediaMaxBytes, mediaBodyLimit };
  await app.register(ticketRoutes, areaDeps);
  await app.register(messageRoutes, areaDeps);
  await app.register(ticketActionRoutes, areaDeps);
  await app.register(messageReadRoutes, areaDeps);
  await app.register(interactiveRoutes, areaDeps);
  await app.register(socialConfigRoutes, areaDeps);
  // Routes beyond the seed that public clients call (docs/api/beyond-the-seed.md).
  await app.register(numberSendRoutes, areaDeps);
  await app.register(conversationChangeRoutes, areaDeps);
  await app.register(directoryRoutes, areaDeps);
  await app.register(crmRoutes, areaDeps);
  await app.register(channelContactRoutes, areaDeps);
  await app.register(templateRoutes, areaDeps);
}
