import { channelTarget, conflict, type Logger, notFound, type proto, type ServiceClient, TtlCache, validation } from '@convo/kit';
import { randomUUID } from 'node:crypto';
import type { MessagesRepository } from '../db/messages.repository';
import type { MessageDoc } from '../db/models';
import { checkInteractive, isNumberRoute, requireRouteChannel } from './interactive';
import type { MediaService, ResolvedMedia } from './media.service';

/** The seed's deduplication window of sendMessageByTicket's externalKey. */
export const SEND_KEY_WINDOW_MS = 120_000;

/** One outbound message, whatever its kind. */
interface Outgoing {
  messageId: string;
  /** The text, the caption, or what a person reading the ticket sees of an interactive message. */
  body: string;
  externalKey: string;
  media?: ResolvedMedia;
  /** "<route>/<type>" and the route's validated JSON. */
  interactive?: { type: string; json: string };
}

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
      const { tenantId } = req;
      ticket = await this.peers.tickets.GetTicket({ tenantId, ticketId: req.ticketId });
      channel = await this.target(tenantId, ticket, { reopen: req.reopen });
      if (hasMedia) media = await this.media.resolve(tenantId, req.media!);
      if (ticket.status === 'closed') {
        ticket = await this.peers.tickets.UpdateTicket({ tenantId, ticketId: req.ticketId, status: 'open' });
      }
    } catch (err) {
      // Nothing was sent: free the key so that a corrected retry goes through.
      if (keyId) await this.repo.releaseKey(keyId, messageId);
      throw err;
    }

    await this.deliver(ticket, channel, { messageId, body: req.body, externalKey: req.externalKey, media });
    if (req.isClosed) {
      await this.peers.tickets.UpdateTicket({ tenantId: req.tenantId, ticketId: ticket.id, status: 'closed' });
    }
    return { messageId, ticketId: ticket.id, status: 'sent', idempotent: false, skipped: false };
  }

  /**
   * An interactive message of a seed route, sent like a text: the same ticket rules and one
   * delivery path, with the route's JSON for the driver of the channel's kind. Ticket routes send
   * to their ticket; waba routes address a number on the integration's channel, on the ticket the
   * caller pins or on the contact's current ticket there, found or opened by tickets.
   */
  async sendInteractive(req: proto.messaging.SendInteractiveRequest__Output): Promise<proto.messaging.SendByTicketResponse> {
    checkInteractive(req);
    const { tenantId } = req;
    let ticket: proto.tickets.Ticket__Output;
    if (isNumberRoute(req.route)) {
      // The channel is checked before a contact or ticket is opened on it: a mismatch writes nothing.
      requireRouteChannel(req.route, await this.channel(tenantId, req.channelId), 'apiId');
      const opened = await this.peers.tickets.OpenForContact({ tenantId, channelId: req.channelId, number: req.number, pinTicketId: req.ticketId });
      if (!opened.ticket) throw notFound('ticket');
      ticket = opened.ticket;
    } else {
      ticket = await this.peers.tickets.GetTicket({ tenantId, ticketId: req.ticketId! });
    }
    const channel = await this.target(tenantId, ticket, { route: req.route });

    const messageId = randomUUID();
    await this.deliver(ticket, channel, {
      messageId,
      body: req.body,
      externalKey: '',
      interactive: { type: `${req.route}/${req.type}`, json: req.json },
    });
    return { messageId, ticketId: ticket.id, status: 'sent', idempotent: false, skipped: false };
  }

  /**
   * The channel a send to this ticket goes through, once the ticket may take it: not closed (unless
   * the caller reopens it), a channel of the route's kind for interactive sends, a contact to write to.
   */
  private async target(
    tenantId: number,
    ticket: proto.tickets.Ticket__Output,
    opts: { reopen?: boolean; route?: string },
  ): Promise<proto.tenants.Channel__Output> {
    if (ticket.status === 'closed' && !opts.reopen) {
      throw conflict(
        'ERR_TICKET_CLOSED',
        opts.route ? `Ticket ${ticket.id} is closed; reopen it (updateticketinfo) before sending` : 'Ticket is closed; send with reopen: true to reopen it',
      );
    }
    const channel = await this.channel(tenantId, ticket.channelId);
    if (opts.route) requireRouteChannel(opts.route, channel, 'ticketId');
    if (!ticket.contact?.number && !ticket.contact?.email) throw notFound('contact', 'The ticket has no contact to write to');
    return channel;
  }

  private channel(tenantId: number, channelId: number) {
    return this.channels.getOrLoad(`${tenantId}:${channelId}`, () => this.peers.tenants.GetChannel({ tenantId, channelId }));
  }

  /** Stores the message as pending, hands it to the channel's driver and records the outcome. */
  private async deliver(ticket: proto.tickets.Ticket__Output, channel: proto.tenants.Channel__Output, out: Outgoing): Promise<void> {
    const now = new Date();
    const { media, interactive } = out;
    const subject = channel.type === 'webmail' ? replySubject(await this.repo.lastInboundSubject(ticket.tenantId, ticket.id)) : '';
    const doc: MessageDoc = {
      _id: out.messageId,
      tenantId: ticket.tenantId,
      ticketId: ticket.id,
      channelId: channel.id,
      direction: 'out',
      body: out.body,
      status: 'pending',
      providerMessageId: '',
      error: '',
      mediaUrl: media?.sourceUrl ?? '',
      mediaId: media?.mediaId ?? '',
      mimeType: media?.mimeType ?? '',
      fileName: media?.fileName ?? '',
      externalKey: out.externalKey,
      interactiveType: interactive?.type ?? '',
      interactiveJson: interactive?.json ?? '',
      subject,
      createdAt: now,
      updatedAt: now,
    };
    await this.repo.insert(doc);
    try {
      const { providerMessageId } = await this.peers.engines.Deliver(
        {
          channel: channelTarget(channel),
          // E-mail tickets (webmail channels) have an address instead of a number.
          to: ticket.contact!.number || ticket.contact!.email,
          content: {
            text: out.body,
            mediaUrl: media?.link ?? '',
            mimeType: media?.mimeType ?? '',
            fileName: media?.fileName ?? '',
            interactiveType: interactive?.type ?? '',
            interactiveJson: interactive?.json ?? '',
            subject,
          },
          reference: out.messageId,
        },
        { deadlineMs: this.providerDeadlineMs },
      );
      await this.repo.applyStatus(doc, 'sent', { providerMessageId });
    } catch (err) {
      await this.repo.applyStatus(doc, 'failed', { error: (err as Error & { details?: string }).details ?? String(err) });
      this.log.warn({ messageId: out.messageId, ticketId: ticket.id }, 'message failed');
      throw err;
    }
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
    fileName: m.fileName ?? '',
    interactiveType: m.interactiveType ?? '',
    interactiveJson: m.interactiveJson ?? '',
    subject: m.subject ?? '',
    createdAt: m.createdAt.toISOString(),
    updatedAt: m.updatedAt.toISOString(),
  };
}

/**
 * E-mail replies stay in the contact's thread: "Re: <their latest subject>". Without one (the
 * ticket was opened by us) the driver derives a subject from the text.
 */
export const replySubject = (subject: string): string => (!subject || /^re:/i.test(subject) ? subject : `Re: ${subject}`);
