import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Authenticator } from '../auth';
import type { Clients } from '../clients';
import { channelRecord, hybridRecord } from '../presenters';
import { ChannelResult } from '../schemas/channel.schemas';
import { UpdateWhatsappBody, WhatsappParams } from '../schemas/tenant.schemas';
import { security } from './principal';
import { linkValue } from './tenant.routes';

/** `PUT {base_url}/whatsapp/{whatsappId}` (CONVENTIONS.md): edits a channel; super-admin token only. */
export async function whatsappRoutes(app: FastifyInstance, { clients, auth }: { clients: Clients; auth: Authenticator }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.addHook('onRequest', auth.superAdmin);

  r.put(
    '/whatsapp/:whatsappId',
    {
      schema: {
        summary: 'Edit a channel, its webhook and its hybrid link',
        params: WhatsappParams,
        body: UpdateWhatsappBody,
        response: { 200: ChannelResult },
        tags: ['tenant'],
        security,
      },
    },
    async (req) => {
      const b = req.body;
      const res = await clients.tenants.UpdateChannel({
        id: req.params.whatsappId,
        name: b.name,
        status: b.status,
        hybridMode: linkValue(b.hybridMode),
        // null clears the link.
        linkedChannelId: linkValue(b.linkedChannelId, ''),
        engineUrl: b.engineUrl,
        engineToken: b.engineToken,
        webhookEnabled: b.webhookEnabled,
        webhookUrl: b.webhookUrl,
        webhookIncoming: b.webhookIncoming,
        pageId: b.pageId,
        pageToken: b.pageToken,
        emailAddress: b.emailAddress,
        sendIntervalMs: b.sendIntervalMs === null ? -1 : b.sendIntervalMs,
        rotateWebhookSecret: b.rotateWebhookSecret ?? false,
        marketingMessagesApi: b.marketingMessagesApi,
      });
      return {
        success: true as const,
        data: { whatsapp: channelRecord(res.whatsapp!), ...(res.hybrid?.present ? { hybrid: hybridRecord(res.hybrid) } : {}) },
      };
    },
  );
}
