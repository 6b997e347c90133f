import { payloadTooLarge, validation, type FieldIssue, type proto } from '@convo/kit';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Clients } from '../clients';
import { ApiParams } from '../schemas/common';
import { SendMessageBody, type UploadedFile } from '../schemas/message.schemas';
import { principalOf, security } from './external';

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

const isUpload = (v: unknown): v is UploadedFile =>
  typeof v === 'object' && v !== null && Buffer.isBuffer((v as UploadedFile).data);

/** The request's one media source (JSON or multipart), checked and turned into the gRPC shape. */
export function mediaOf(b: Pick<SendMessageBody, 'media' | 'mediaUrl' | 'base64Data' | 'mimeType' | 'fileName'>, maxBytes: number): proto.messaging.Media | undefined {
  const sources = (['media', 'mediaUrl', 'base64Data'] as const).filter((f) => b[f] !== undefined);
  if (sources.length > 1) {
    throw validation(
      'At most one media source per request',
      sources.map((field) => ({ field, message: 'send only one of media, mediaUrl, base64Data' })),
    );
  }
  if (b.media !== undefined) {
    if (!isUpload(b.media)) throw validation('media must be a file', [{ field: 'media', message: 'must be a multipart file' }]);
    if (b.media.truncated) throw payloadTooLarge(`media is larger than ${maxBytes} bytes`);
    return { data: b.media.data, mimeType: b.mimeType ?? b.media.mimeType, fileName: b.fileName ?? stripExtension(b.media.fileName) };
  }
  if (b.mediaUrl !== undefined) {
    let url: URL | undefined;
    try {
      url = new URL(b.mediaUrl);
    } catch {
      // reported below
    }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
      throw validation('Invalid mediaUrl', [{ field: 'mediaUrl', message: 'must be a public http or https URL' }]);
    }
    return { url: b.mediaUrl, mimeType: b.mimeType ?? '', fileName: b.fileName ?? '' };
  }
  if (b.base64Data !== undefined) {
    const issues: FieldIssue[] = [];
    if (!b.mimeType) issues.push({ field: 'mimeType', message: 'is required with base64Data' });
    if (!b.fileName) issues.push({ field: 'fileName', message: 'is required with base64Data' });
    const compact = b.base64Data.replace(/^data:[^;,]+;base64,/, '').replace(/\s+/g, '');
    if (!compact || compact.length % 4 !== 0 || !BASE64.test(compact)) {
      issues.push({ field: 'base64Data', message: 'must be base64' });
    }
    if (issues.length) throw validation('Invalid base64 media', issues);
    if ((compact.length / 4) * 3 > maxBytes + 2) throw payloadTooLarge(`media is larger than ${maxBytes} bytes`);
    return { data: Buffer.from(compact, 'base64'), mimeType: b.mimeType!, fileName: b.fileName! };
  }
  return undefined;
}

const stripExtension = (name: string) => name.replace(/\.[^.]*$/, '');

/** The answer of every send accepted through SendByTicket (by ticket or by number). */
export const sendAnswer = (res: proto.messaging.SendByTicketResponse__Output) =>
  res.skipped
    ? { success: true, idempotent: true, skipped: true, ticketId: res.ticketId }
    : { success: true, data: { message: 'Message accepted for delivery', ticketId: res.ticketId, messageId: res.messageId } };

/** sendMessageByTicket: the one way to send to any ticket, whatever the channel kind. */
export async function messageRoutes(
  app: FastifyInstance,
  { clients, mediaMaxBytes, mediaBodyLimit }: { clients: Clients; mediaMaxBytes: number; mediaBodyLimit: number },
) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.post(
    '/sendMessageByTicket',
    { bodyLimit: mediaBodyLimit, config: { media: true }, schema: { params: ApiParams, body: SendMessageBody, tags: ['messages'], security, consumes: ['application/json', 'multipart/form-data'] } },
    async (req) => {
      const b = req.body;
      const media = mediaOf(b, mediaMaxBytes);
      if (!b.body && !media) throw validation('Invalid message', [{ field: 'body', message: 'is required for a text message' }]);
      const res = await clients.messaging.SendByTicket({
        tenantId: principalOf(req).tenantId,
        ticketId: b.ticketId,
        body: b.body ?? '',
        externalKey: b.externalKey ?? '',
        reopen: b.reopen ?? false,
        isClosed: b.isClosed ?? false,
        media,
      });
      return sendAnswer(res);
    },
  );
}
