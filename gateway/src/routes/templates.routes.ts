import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Clients } from '../clients';
import { ApiParams } from '../schemas/common';
import { SendResult } from '../schemas/envelopes';
import { TemplateList, templateOf, TemplateSendBody } from '../schemas/template.schemas';
import { sendAnswer } from './messages.routes';
import { principalOf, security } from './principal';

const tags = ['templates'];

/**
 * The official channel's templates: the three send routes real clients call (both request shapes)
 * and the channel's catalog. messaging checks a send against the catalog (exists, APPROVED,
 * parameters per component) and queues it like any send by number.
 */
export async function templateRoutes(app: FastifyInstance, { clients }: { clients: Clients }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  for (const path of ['/template', '/templateBody', '/templateMarketingBody']) {
    r.post(
      path,
      {
        schema: {
          summary: 'Send an approved template to a number (official channel); allowed outside the 24-hour window',
          params: ApiParams,
          body: TemplateSendBody,
          response: { 200: SendResult },
          tags,
          security,
        },
      },
      async (req) => {
        const b = req.body;
        const { number, name, language, components } = templateOf(b);
        const { tenantId, sessionId } = principalOf(req);
        const res = await clients.messaging.SendTemplate({
          tenantId,
          channelId: sessionId,
          number,
          name,
          language,
          componentsJson: components.length ? JSON.stringify(components) : '',
          externalKey: b.externalKey ?? '',
          isClosed: b.isClosed ?? false,
          ticketId: b.ticketId,
        });
        return sendAnswer(res);
      },
    );
  }

  r.get(
    '/templates',
    {
      schema: {
        summary: "The official channel's message templates (Meta's catalog, cached per channel)",
        params: ApiParams,
        response: { 200: TemplateList },
        tags,
        security,
      },
    },
    async (req) => {
      const { tenantId, sessionId } = principalOf(req);
      const { templates } = await clients.messaging.ListTemplates({ tenantId, channelId: sessionId });
      return {
        success: true as const,
        data: {
          templates: templates.map((t) => ({
            name: t.name,
            language: t.language,
            category: t.category,
            status: t.status,
            parameters: {
              header: t.components.find((c) => c.type === 'header')?.parameters ?? 0,
              body: t.components.find((c) => c.type === 'body')?.parameters ?? 0,
              buttons: t.components
                .filter((c) => c.type === 'button')
                .map((c) => ({ index: c.index, type: c.format, parameters: c.parameters })),
            },
          })),
        },
      };
    },
  );
}
