import { conflict, currentTraceparent, type grpc, type Logger, type proto, type ServiceClient } from '@convo/kit';
import type { MessagesRepository } from '../../db/messages.repository';
import type { MediaService, ResolvedMedia } from '../media.service';
import { replySubject } from '../message-view';
import { type SendChannels, windowEnd } from '../send-channels';
import { deadlineMs, DEFAULT_ACCEPT_MS, requireTimeLeft } from '../send-checks';
import type { TicketSnapshots } from '../ticket-snapshots';

/** The seed's deduplication window of sendMessageByTicket's externalKey. */
export const SEND_KEY_WINDOW_MS = 120_000;

/** One outbound message, whatever its kind. */
export interface Outgoing {
  messageId: string;
  /** The text, the caption, or what a person reading the ticket sees of an interactive message. */
  body: string;
  externalKey: string;
  media?: ResolvedMedia;
  /** An audio sent as a voice note. */
  voice?: boolean;
  /** "<route>/<type>" and the route's validated JSON. */
  interactive?: { type: string; json: string };
  /** routeVia "auto": the linked channel may carry it (coexistence), decided at delivery. */
  routeAuto?: boolean;
}

export interface Peers {
  tickets: ServiceClient<'tickets'>;
  tenants: ServiceClient<'tenants'>;
  engines: ServiceClient<'channelEngines'>;
}

/**
 * What every send operation shares (send/*.ts, one file per operation): the channel and ticket
 * lookups, the externalKey claim, and the commit point that queues the message.
 */
export class Acceptance {
  constructor(
    readonly repo: MessagesRepository,
    readonly peers: Peers,
    readonly media: MediaService,
    readonly log: Logger,
    readonly channels: SendChannels,
    readonly tickets: TicketSnapshots,
  ) {}

  /**
   * The ticket a send by ticket id goes to and its channel (SendChannels.target), decided on a kept
   * copy of the ticket when that says yes (TicketSnapshots.decide); a routeVia "auto" send on waba
   * reads the ticket again, since it stores the contact's window as it is now.
   */
  ticketTaking(tenantId: number, ticketId: number, opts: { reopen?: boolean; route?: string; routeAuto?: boolean }) {
    return this.tickets.decide(
      tenantId,
      ticketId,
      (t) => this.channels.target(tenantId, t, opts),
      (c) => !!opts.routeAuto && c.type === 'waba',
    );
  }

  /** A ticket a refused send opened goes again: a refused send opens nothing. */
  async discard(tenantId: number, ticketId: number): Promise<void> {
    await this.peers.tickets.DiscardTicket({ tenantId, ticketId }).catch((undo: unknown) => {
      this.log.error({ err: undo, ticketId }, 'ticket opened for a refused send not discarded');
    });
  }

  /**
   * The commit point of every send: the ticket change the send asks for (reopen, or close with
   * `isClosed`), then the message stored `queued`. The ticket changes first so that a message is
   * never queued on a ticket left in the wrong state; if the message cannot be stored, the ticket is
   * put back as it was, and the caller gets an error with nothing accepted. A request whose time is
   * nearly up is refused before the insert rather than answered 504 after it.
   */
  async enqueue(
    ticket: proto.tickets.Ticket__Output,
    channel: proto.tenants.Channel__Output,
    out: Outgoing,
    rules: { reopen?: boolean; close?: boolean },
    deadline?: grpc.Deadline,
  ): Promise<void> {
    const { tenantId } = ticket;
    const previous = ticket.status;
    const wanted = rules.close ? 'closed' : previous === 'closed' && rules.reopen ? 'open' : previous;
    if (wanted !== previous) {
      await this.peers.tickets.UpdateTicket({ tenantId, ticketId: ticket.id, status: wanted });
      this.tickets.forget(tenantId, ticket.id);
    }
    try {
      const subject = channel.type === 'webmail' ? replySubject(await this.repo.lastInboundSubject(tenantId, ticket.id)) : '';
      requireTimeLeft(deadline);
      const now = new Date();
      const { media, interactive } = out;
      // Only the fields this message has (see MessageDoc): a text message is half the document.
      const traceparent = currentTraceparent();
      await this.repo.insert({
        _id: out.messageId,
        tenantId,
        ticketId: ticket.id,
        channelId: channel.id,
        direction: 'out',
        body: out.body,
        status: 'queued',
        ...(media && {
          ...(media.sourceUrl && { mediaUrl: media.sourceUrl }),
          mediaId: media.mediaId,
          mimeType: media.mimeType,
          ...(media.fileName && { fileName: media.fileName }),
        }),
        ...(out.externalKey && { externalKey: out.externalKey }),
        // E-mail tickets (webmail channels) have an address instead of a number.
        to: ticket.contact!.number || ticket.contact!.email,
        ...(interactive && { interactiveType: interactive.type, interactiveJson: interactive.json }),
        ...(subject && { subject }),
        ...(out.voice && { voice: true }),
        ...(traceparent && { traceparent }),
        // Coexistence: the linked channel may carry it while the window acceptance read is open.
        ...(out.routeAuto && channel.type === 'waba' && { routeVia: 'auto' as const, windowUntil: windowEnd(ticket) }),
        createdAt: now,
        updatedAt: now,
      });
    } catch (err) {
      if (wanted !== previous) {
        await this.peers.tickets.UpdateTicket({ tenantId, ticketId: ticket.id, status: previous }).catch((undo: unknown) => {
          this.log.error({ err: undo, ticketId: ticket.id, status: previous }, 'ticket status not restored after a refused send');
        });
        this.tickets.forget(tenantId, ticket.id);
      }
      throw err;
    }
  }

  /**
   * Claims an externalKey for this send; false when a send with the key was accepted within the
   * window (the caller answers skipped). A claim whose send never stored its message (its process
   * died between the two writes) is taken over once that send's deadline has passed, since it can
   * no longer commit; before that, the other send may still be under way: ERR_SEND_IN_PROGRESS.
   */
  async claim(
    tenantId: number,
    keyId: string,
    ticketId: number,
    messageId: string,
    deadline?: grpc.Deadline,
  ): Promise<true | { ticketId: number }> {
    const now = Date.now();
    const doc = {
      _id: keyId,
      ticketId,
      messageId,
      createdAt: new Date(now),
      acceptBy: new Date(deadlineMs(deadline) ?? now + DEFAULT_ACCEPT_MS),
    };
    // Skipped: the ticket the first send went to (a send by number claims before its ticket is known).
    const skip = (held: { ticketId: number }) => ({ ticketId: held.ticketId || ticketId });
    for (let round = 0; round < 2; round++) {
      if (await this.repo.claimKey(doc)) return true;
      const held = await this.repo.findKey(keyId);
      if (!held) continue; // released meanwhile (a refused send): claim it again
      if (held.createdAt.getTime() < now - SEND_KEY_WINDOW_MS) return (await this.repo.takeOverKey(doc, held)) || skip(held);
      const accepted = await this.repo.findById(tenantId, held.messageId);
      if (accepted) return skip(accepted);
      if ((held.acceptBy?.getTime() ?? held.createdAt.getTime() + DEFAULT_ACCEPT_MS) < now)
        return (await this.repo.takeOverKey(doc, held)) || skip(held);
      throw conflict('ERR_SEND_IN_PROGRESS', 'A send with this externalKey is under way; retry it in a moment');
    }
    return skip({ ticketId });
  }
}
