import { payloadTooLarge, type proto } from '@convo/kit';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Clients } from '../clients';
import { ApiParams } from '../schemas/common';
import { SendResult } from '../schemas/envelopes';
import { isUpload, SendMessageBody } from '../schemas/message.schemas';
import { decodedFileOf, installMediaJsonParser } from '../validation/base64-stream';
import { principalOf, security } from './principal';

/**
 * The request's one media source (JSON or multipart) in the gRPC shape. The schema's rules
 * (contentRules) have checked it; only the size is left, which answers 413.
 */
export function mediaOf(
  b: Pick<SendMessageBody, 'media' | 'mediaUrl' | 'base64Data' | 'mimeType' | 'fileName'>,
  maxBytes: number,
): proto.messaging.Media | undefined {
  if (isUpload(b.media)) {
    if (b.media.truncated) throw payloadTooLarge(`media is larger than ${maxBytes} bytes`);
    return { data: b.media.data, mimeType: b.mimeType ?? b.media.mimeType, fileName: b.fileName ?? stripExtension(b.media.fileName) };
  }
  if (b.mediaUrl !== undefined) return { url: b.mediaUrl, mimeType: b.mimeType ?? '', fileName: b.fileName ?? '' };
  if (b.base64Data !== undefined) {
    // Decoded while the body streamed in (validation/base64-stream.ts).
    const file = decodedFileOf(b);
    if (file) return { data: file, mimeType: b.mimeType!, fileName: b.fileName! };
    if ((b.base64Data.length / 4) * 3 > maxBytes + 2) throw payloadTooLarge(`media is larger than ${maxBytes} bytes`);
    return { data: Buffer.from(b.base64Data, 'base64'), mimeType: b.mimeType!, fileName: b.fileName! };
  }
  return undefined;
}

const stripExtension = (name: string) => name.replace(/\.[^.]*$/, '');

/** The answer of every send accepted through SendByTicket (by ticket or by number). */
export const sendAnswer = (res: proto.messaging.SendByTicketResponse__Output): SendResult =>
  res.skipped
    ? { success: true as const, idempotent: true as const, skipped: true as const, ticketId: res.ticketId }
    : { success: true as const, data: { message: 'Message accepted for delivery', ticketId: res.ticketId, messageId: res.messageId } };

/** sendMessageByTicket: the one way to send to any ticket, whatever the channel kind. */
export async function messageRoutes(
  app: FastifyInstance,
  { clients, mediaMaxBytes, mediaBodyLimit }: { clients: Clients; mediaMaxBytes: number; mediaBodyLimit: number },
) {
  installMediaJsonParser(app, mediaMaxBytes);
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.post(
    '/sendMessageByTicket',
    {
      bodyLimit: mediaBodyLimit,
      config: { media: true },
      schema: {
        summary: 'Send a message (text or file) to the contact of a ticket',
        params: ApiParams,
        body: SendMessageBody,
        response: { 200: SendResult },
        tags: ['messages'],
        security,
        consumes: ['application/json', 'multipart/form-data'],
      },
    },
    async (req) => {
      const b = req.body;
      const media = mediaOf(b, mediaMaxBytes);
      const res = await clients.messaging.SendByTicket({
        tenantId: principalOf(req).tenantId,
        ticketId: b.ticketId,
        body: b.body ?? '',
        externalKey: b.externalKey ?? '',
        reopen: b.reopen ?? false,
        isClosed: b.isClosed ?? false,
        media,
        routeVia: b.routeVia ?? '',
      });
      return sendAnswer(res);
    },
  );
}
