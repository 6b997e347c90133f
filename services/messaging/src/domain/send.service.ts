import { conflict, notFound, TtlCache, validation, type Logger, type ServiceClient, type proto } from '@convo/kit';
import { randomUUID } from 'node:crypto';
import type { MessagesRepository } from '../db/messages.repository';
import type { MessageDoc } from '../db/models';
import type { MediaService, ResolvedMedia } from './media.service';

/** The seed's deduplication window of sendMessageByTicket's externalKey. */
export const SEND_KEY_WINDOW_MS = 120_000;

export interface Peers {
  tickets: ServiceClient<'tickets'>;
  tenants: ServiceClient<'tenants'>;
  engines: ServiceClient<'channelEngines'>;
}

export class SendService {
  /** Channels change rarely and every send needs one: a few seconds of staleness saves a hop. */
  private readonly channels: TtlCache<string, proto.tenants.Channel__Output>;

  constructor(
    private readonly repo: MessagesRepository,
    private readonly peers: Peers,
    private readonly media: MediaService,
    private readonly log: Logger,
    private readonly providerDeadlineMs: number,
    channelCacheMs = 5_000,
  ) {
    this.channels = new TtlCache(channelCacheMs);
  }

  async sendByTicket(req: proto.messaging.SendByTicketRequest__Output): Promise<proto.messaging.SendByTicketResponse> {
    const hasMedia = !!(req.media?.url || req.media?.data.length);
    if (!req.body && !hasMedia) throw validation('Nothing to send', [{ field: 'body', message: 'is required for a text message' }]);

    const messageId = randomUUID();
    const keyId = req.externalKey ? `${req.tenantId}:${req.externalKey}` : '';
    if (keyId && !(await this.claim(keyId, req.ticketId, messageId))) {
      return { idempotent: true, skipped: true, ticketId: req.ticketId };
    }

    let ticket: proto.tickets.Ticket__Output;
    let channel: proto.tenants.Channel__Output;
    let media: ResolvedMedia | undefined;
    try {
      // Everything that can refuse the send happens before the ticket changes or anything is sent.
      ticket = await this.peers.tickets.GetTicket({ tenantId: req.tenantId, ticketId: req.ticketId });
      if (ticket.status === 'closed' && !req.reopen) {
        throw conflict('ERR_TICKET_CLOSED', 'Ticket is closed; send with reopen: true to reopen it');
      }
      const { tenantId } = req;
      const { channelId } = ticket;
      channel = await this.channels.getOrLoad(`${tenantId}:${channelId}`, () =>
        this.peers.tenants.GetChannel({ tenantId, channelId }),
      );
      if (!ticket.contact?.number && !ticket.contact?.email) throw notFound('contact', 'The ticket has no contact to write to');
      if (hasMedia) media = await this.media.resolve(tenantId, req.media!);
      if (ticket.status === 'closed') {
        ticket = await this.peers.tickets.UpdateTicket({ tenantId, ticketId: req.ticketId, status: 'open' });
      }
    } catch (err) {
      // Nothing was sent: free the key so that a corrected retry goes through.
      if (keyId) await this.repo.releaseKey(keyId, messageId);
      throw err;
    }

    const now = new Date();
    const doc: MessageDoc = {
      _id: messageId,
      tenantId: req.tenantId,
      ticketId: ticket.id,
      channelId: channel.id,
      direction: 'out',
      body: req.body,
      status: 'pending',
      providerMessageId: '',
      error: '',
      mediaUrl: media?.sourceUrl ?? '',
      mediaId: media?.mediaId ?? '',
      mimeType: media?.mimeType ?? '',
      fileName: media?.fileName ?? '',
      externalKey: req.externalKey,
      createdAt: now,
      updatedAt: now,
    };
    await this.repo.insert(doc);
    try {
      const { providerMessageId } = await this.peers.engines.Deliver(
        {
          channel: {
            id: channel.id,
            tenantId: channel.tenantId,
            type: channel.type,
            engineUrl: channel.engineUrl,
            engineToken: channel.engineToken,
            tokenApi: channel.tokenApi,
            bmToken: channel.bmToken,
            pageId: channel.pageId,
            pageToken: channel.pageToken,
            wabaId: channel.wabaId,
            emailAddress: channel.emailAddress,
          },
          // E-mail tickets (webmail channels) have an address instead of a number.
          to: ticket.contact!.number || ticket.contact!.email,
          content: { text: req.body, mediaUrl: media?.link ?? '', mimeType: media?.mimeType ?? '', fileName: media?.fileName ?? '' },
          reference: messageId,
        },
        { deadlineMs: this.providerDeadlineMs },
      );
      await this.repo.setStatus(messageId, 'sent', { providerMessageId });
    } catch (err) {
      await this.repo.setStatus(messageId, 'failed', { error: (err as Error & { details?: string }).details ?? String(err) });
      this.log.warn({ messageId, ticketId: ticket.id }, 'message failed');
      throw err;
    }
    if (req.isClosed) {
      await this.peers.tickets.UpdateTicket({ tenantId: req.tenantId, ticketId: ticket.id, status: 'closed' });
    }
    return { messageId, ticketId: ticket.id, status: 'sent', idempotent: false, skipped: false };
  }

  async getMedia(mediaId: string) {
    return this.media.get(mediaId);
  }

  async getMessage(tenantId: number, messageId: string) {
    const doc = await this.repo.findById(tenantId, messageId);
    if (!doc) throw notFound('message');
    return toMessage(doc);
  }

  private async claim(keyId: string, ticketId: number, messageId: string): Promise<boolean> {
    const doc = { _id: keyId, ticketId, messageId, createdAt: new Date() };
    if (await this.repo.claimKey(doc)) return true;
    return this.repo.takeOverExpiredKey(doc, new Date(Date.now() - SEND_KEY_WINDOW_MS));
  }
}

export function toMessage(m: MessageDoc): proto.messaging.Message {
  return {
    messageId: m._id,
    tenantId: m.tenantId,
    ticketId: m.ticketId,
    channelId: m.channelId,
    direction: m.direction,
    body: m.body,
    status: m.status,
    providerMessageId: m.providerMessageId,
    error: m.error,
    mediaUrl: m.mediaUrl,
    mimeType: m.mimeType,
    createdAt: m.createdAt.toISOString(),
    updatedAt: m.updatedAt.toISOString(),
  };
}
