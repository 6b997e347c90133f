import type { FastifyInstance } from 'fastify';
import type { Clients } from '../clients';
import { ApiParams, contactKeyOf } from '../schemas/common';
import { SendResult } from '../schemas/envelopes';
import { INTERACTIVE, type InteractiveDef } from '../schemas/interactive';
import { principalOf, security } from './principal';
import { pathsOf } from './segments';

const tags = ['interactive'];

/**
 * Interactive messages (buttons, lists, polls, call-to-action, carousels, PIX and payment requests,
 * Messenger/Instagram templates): each route validates its engine's body, then messaging sends it
 * through the ticket's channel, which must be of the route's kind. docs/api/interactive.md.
 */
export async function interactiveRoutes(app: FastifyInstance, { clients }: { clients: Clients }) {
  // Each engine's routes answer under the seed's segment and the engine's real name (segments.ts).
  for (const def of INTERACTIVE) for (const path of pathsOf(def.path)) register(app, clients, def, path);
}

function register(app: FastifyInstance, clients: Clients, def: InteractiveDef, path: string) {
  app.post(
    path,
    // The schema carries the route's cross-field rules (x-rules): one validation, one envelope.
    { schema: { summary: def.summary, params: ApiParams, body: def.schema, response: { 200: SendResult }, tags, security } },
    async (req) => {
      const body = (req.body ?? {}) as Record<string, unknown>;

      const { ticketId, number, routeVia, ...json } = body as { ticketId?: number; number?: string; routeVia?: string };
      const principal = principalOf(req);
      const res = await clients.messaging.SendInteractive({
        tenantId: principal.tenantId,
        route: def.route,
        type: def.type,
        json: JSON.stringify(json),
        ticketId,
        // waba routes address a contact (number or BSUID) on the integration's own channel.
        number: number === undefined ? '' : contactKeyOf(number),
        channelId: def.route === 'waba' ? principal.sessionId : 0,
        body: def.text(body),
        routeVia: routeVia ?? '',
      });
      return {
        success: true as const,
        data: { message: 'Interactive message accepted for delivery', ticketId: res.ticketId, messageId: res.messageId },
      };
    },
  );
}
