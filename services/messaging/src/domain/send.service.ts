import { channelTarget, conflict, currentTraceparent, DomainError, type grpc, type Logger, notFound, type proto, type ServiceClient, validation } from '@convo/kit';
import type { ChannelLookup } from '../channels/channel-lookup';
import type { MessagesRepository } from '../db/messages.repository';
import { newMessageId } from './message-id';
import { checkInteractive, isNumberRoute, requireRouteChannel } from './interactive';
import type { MediaService, ResolvedMedia } from './media.service';
import { toMessage, replySubject } from './message-view';
import { SendChannels, windowEnd } from './send-channels';
import { TicketSnapshots } from './ticket-snapshots';
import { checkGroupSend, checkNumberSend, checkRouteVia, deadlineMs, DEFAULT_ACCEPT_MS, requireTimeLeft, routeAuto, checkTemplateSend } from './send-checks';
import { checkParameters, renderBody, requireApproved, requirePhoneFor, type TemplateMessage } from './templates';

/** The seed's deduplication window of sendMessageByTicket's externalKey. */
export const SEND_KEY_WINDOW_MS = 120_000;

/**
 * A group is a contact of its channel addressed by its JID (`<id>@g.us`), kept where an e-mail
 * contact keeps its address: every later send to its ticket goes to the group too.
 */
export const groupJid = (groupId: string) => `${groupId}@g.us`;

/** One outbound message, whatever its kind. */
interface Outgoing {
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

export class SendService {
  private readonly channels: SendChannels;
  private readonly tickets: TicketSnapshots;

  constructor(
    private readonly repo: MessagesRepository,
    private readonly peers: Peers,
    private readonly media: MediaService,
    private readonly log: Logger,
    channels: ChannelLookup,
  ) {
    this.channels = new SendChannels(peers.engines, channels);
    this.tickets = new TicketSnapshots(peers.tickets);
  }

  /**
   * Accepts a message for a ticket: the ticket rules, then the message stored `queued` for the
   * dispatcher. Nothing here waits for a provider; a success means the message is durably queued.
   *
   * A send by number (ticket_id 0) addresses the contact on the integration's channel instead: its
   * current ticket there, opened when it has none (as the waba routes do), then accepted exactly as
   * a send to that ticket. Its file is fetched before a ticket is opened, and a ticket it opened is
   * discarded if the message is not accepted, so a refused send opens nothing.
   */
  async sendByTicket(req: proto.messaging.SendByTicketRequest__Output, deadline?: grpc.Deadline): Promise<proto.messaging.SendByTicketResponse> {
    checkRouteVia(req.routeVia);
    const hasMedia = !!(req.media?.url || req.media?.data.length);
    if (!req.body && !hasMedia) throw validation('Nothing to send', [{ field: 'body', message: 'is required for a text message' }]);
    const byNumber = !req.ticketId;
    const toGroup = byNumber && !!req.groupId;
    if (toGroup) checkGroupSend(req);
    else if (byNumber) checkNumberSend(req);

    const messageId = newMessageId();
    const keyId = req.externalKey ? `${req.tenantId}:${req.externalKey}` : '';
    if (keyId) {
      const held = await this.claim(req.tenantId, keyId, req.ticketId, messageId, deadline);
      if (held !== true) return { idempotent: true, skipped: true, ticketId: held.ticketId };
    }
    let opened: proto.tickets.Ticket__Output | undefined;
    try {
      const { tenantId } = req;
      let ticket: proto.tickets.Ticket__Output;
      let channel: proto.tenants.Channel__Output;
      let media: ResolvedMedia | undefined;
      const routing = { reopen: req.reopen, routeAuto: routeAuto(req.routeVia) };
      if (byNumber) {
        if (toGroup) await this.channels.groupChannel(tenantId, req.channelId);
        else await this.channels.numberChannel(tenantId, req.channelId, req.number, req.validateNumber);
        media = hasMedia ? await this.resolveMedia(tenantId, req.media!) : undefined;
        const contact = toGroup ? { number: '', email: groupJid(req.groupId) } : { number: req.number };
        const found = await this.peers.tickets.OpenForContact({ tenantId, channelId: req.channelId, ...contact });
        if (!found.ticket) throw notFound('ticket');
        ticket = found.ticket;
        if (found.created) opened = ticket;
        channel = await this.channels.target(tenantId, ticket, routing);
      } else {
        ({ ticket, answer: channel } = await this.ticketTaking(tenantId, req.ticketId, routing));
      }
      if (hasMedia && !media) media = await this.resolveMedia(tenantId, req.media!);
      const out = { messageId, body: req.body, externalKey: req.externalKey, media, voice: req.media?.voice, routeAuto: routing.routeAuto };
      await this.enqueue(ticket, channel, out, { reopen: req.reopen, close: req.isClosed }, deadline);
      return { messageId, ticketId: ticket.id, status: 'queued', idempotent: false, skipped: false };
    } catch (err) {
      // Nothing was accepted: a ticket opened for it goes, and the key is freed so that a corrected
      // retry goes through.
      if (opened) await this.discard(req.tenantId, opened.id);
      if (keyId) await this.repo.releaseKey(keyId, messageId);
      throw err;
    }
  }

  /**
   * sendPresence: typing / paused shown to the ticket's contact through the channel's driver, at
   * once (not a message: nothing is stored or queued). A kind without the notion answers applied
   * false; a provider failure is the answer (ERR_PROVIDER_FAILED).
   */
  async sendPresence(req: proto.messaging.SendPresenceRequest__Output, deadline?: grpc.Deadline): Promise<proto.messaging.SendPresenceResponse> {
    if (req.state !== 'typing' && req.state !== 'paused') throw validation('Invalid presence', [{ field: 'state', message: 'must be typing or paused' }]);
    const { tenantId, ticketId } = req;
    // The contact's number and the channel, which never change: a kept copy serves.
    const { ticket } = await this.tickets.get(tenantId, ticketId);
    const to = ticket.contact?.number;
    if (!to) return { ticketId, state: req.state, applied: false };
    const channel = await this.channels.get(tenantId, ticket.channelId);
    // The Cloud API shows typing in answer to the contact's latest message.
    const replyTo = channel.type === 'waba' && req.state === 'typing' ? await this.repo.lastInboundProviderId(tenantId, ticketId) : '';
    const at = deadlineMs(deadline);
    const { applied } = await this.peers.engines.SendPresence(
      { channel: channelTarget(channel), to, state: req.state, replyTo },
      at === undefined ? {} : { deadlineMs: Math.max(1, at - Date.now() - 50) },
    );
    return { ticketId, state: req.state, applied };
  }

  /**
   * createTicket as one operation: the checks that write nothing (the e-mail variant's channel must
   * be a webmail channel; validateNumber asks the channel's network), then the ticket, then its
   * first message queued. If the message cannot be queued the new ticket is discarded (and its
   * externalKey freed): both or neither. A repeated externalKey answers the first ticket and
   * queues nothing.
   */
  async openTicket(req: proto.messaging.OpenTicketRequest__Output, deadline?: grpc.Deadline): Promise<proto.messaging.OpenTicketResponse> {
    const t = req.ticket;
    if (!t) throw validation('Invalid ticket', [{ field: 'ticket', message: 'is required' }]);
    if (!req.body.trim()) throw validation('Invalid ticket', [{ field: 'body', message: 'is required: the first message' }]);
    const { tenantId } = t;
    if (!t.number) {
      // The e-mail variant names its channel: another tenant's is NOT_FOUND, as if absent.
      const channel = await this.channels.get(tenantId, t.channelId);
      if (channel.type !== 'webmail') {
        throw validation('The e-mail variant needs a webmail channel', [
          { field: 'channelId', message: `channel ${channel.id} is ${channel.type}, not webmail` },
        ], 'ERR_CHANNEL_NOT_WEBMAIL');
      }
    } else if (req.validateNumber) {
      await this.channels.requireOnNetwork(await this.channels.get(tenantId, t.channelId), t.number);
    }
    const { ticket, created } = await this.peers.tickets.CreateTicket(t);
    if (!ticket) throw notFound('ticket');
    if (!created) return { ticket, created: false, messageId: '' };
    const messageId = newMessageId();
    try {
      const channel = await this.channels.target(tenantId, ticket, {});
      await this.enqueue(ticket, channel, { messageId, body: req.body, externalKey: '' }, {}, deadline);
    } catch (err) {
      await this.peers.tickets.DiscardTicket({ tenantId, ticketId: ticket.id }).catch((undo: unknown) => {
        this.log.error({ err: undo, ticketId: ticket.id }, 'new ticket not discarded after its first message was refused');
      });
      throw err;
    }
    return { ticket, created: true, messageId };
  }

  /**
   * sendEvaluation as one operation: tickets claims the survey (once per ticket unless forced,
   * once per externalKey), the survey is queued, then the claim is completed with its message. A
   * survey that cannot be queued frees the claims, so a retry sends it.
   */
  async sendEvaluation(req: proto.messaging.SendEvaluationRequest__Output, deadline?: grpc.Deadline): Promise<proto.messaging.SendEvaluationResponse> {
    const { tenantId, ticketId } = req;
    const begun = await this.peers.tickets.BeginEvaluation({ tenantId, ticketId, force: req.force, externalKey: req.externalKey });
    if (!begun.proceed) return { skipped: true, messageId: '', ticket: begun.ticket };
    const messageId = newMessageId();
    try {
      const ticket = begun.ticket ?? (await this.peers.tickets.GetTicket({ tenantId, ticketId }));
      const channel = await this.channels.target(tenantId, ticket, {});
      await this.enqueue(ticket, channel, { messageId, body: begun.body, externalKey: '' }, {}, deadline);
    } catch (err) {
      await this.peers.tickets.AbortEvaluation({ tenantId, ticketId, claimId: begun.claimId }).catch((undo: unknown) => {
        this.log.error({ err: undo, ticketId }, 'evaluation claims not freed after the survey was refused');
      });
      throw err;
    }
    const ticket = await this.peers.tickets.CompleteEvaluation({ tenantId, ticketId, claimId: begun.claimId, messageId });
    return { skipped: false, messageId, ticket };
  }

  /**
   * An interactive message of a seed route, accepted like a text: the same ticket rules and one
   * queue, with the route's JSON for the driver of the channel's kind. Ticket routes send to their
   * ticket; waba routes address a number on the integration's channel, on the ticket the caller
   * pins or on the contact's current ticket there, found or opened by tickets.
   */
  async sendInteractive(req: proto.messaging.SendInteractiveRequest__Output, deadline?: grpc.Deadline): Promise<proto.messaging.SendByTicketResponse> {
    checkInteractive(req);
    checkRouteVia(req.routeVia);
    const { tenantId } = req;
    const routing = { route: req.route, routeAuto: routeAuto(req.routeVia) };
    let found: proto.tickets.CreateTicketResponse__Output | undefined;
    if (isNumberRoute(req.route)) {
      // The channel is checked before a contact or ticket is opened on it: a mismatch writes nothing.
      requireRouteChannel(req.route, await this.channels.get(tenantId, req.channelId), 'apiId');
      found = await this.peers.tickets.OpenForContact({ tenantId, channelId: req.channelId, number: req.number, pinTicketId: req.ticketId });
      if (!found.ticket) throw notFound('ticket');
    }
    const opened = found?.created ? found.ticket : undefined;
    const messageId = newMessageId();
    try {
      const { ticket, answer: channel } = found?.ticket
        ? { ticket: found.ticket, answer: await this.channels.target(tenantId, found.ticket, routing) }
        : await this.ticketTaking(tenantId, req.ticketId!, routing);
      const interactive = { type: `${req.route}/${req.type}`, json: req.json };
      await this.enqueue(ticket, channel, { messageId, body: req.body, externalKey: '', interactive, routeAuto: routing.routeAuto }, {}, deadline);
      return { messageId, ticketId: ticket.id, status: 'queued', idempotent: false, skipped: false };
    } catch (err) {
      if (opened) await this.discard(tenantId, opened.id);
      throw err;
    }
  }

  /**
   * The ticket a send by ticket id goes to and its channel (SendChannels.target), decided on a kept
   * copy of the ticket when that says yes (TicketSnapshots.decide); a routeVia "auto" send on waba
   * reads the ticket again, since it stores the contact's window as it is now.
   */
  private ticketTaking(tenantId: number, ticketId: number, opts: { reopen?: boolean; route?: string; routeAuto?: boolean }) {
    return this.tickets.decide(tenantId, ticketId, (t) => this.channels.target(tenantId, t, opts), (c) => !!opts.routeAuto && c.type === 'waba');
  }

  /** A ticket a refused send opened goes again: a refused send opens nothing. */
  private async discard(tenantId: number, ticketId: number): Promise<void> {
    await this.peers.tickets.DiscardTicket({ tenantId, ticketId }).catch((undo: unknown) => {
      this.log.error({ err: undo, ticketId }, 'ticket opened for a refused send not discarded');
    });
  }

  /**
   * A template of a waba channel: checked against the channel's catalog (it exists, is APPROVED,
   * and each component gets the parameters it takes) before anything is opened, then queued on the
   * contact's current ticket (found or opened, or the pinned one) like a send by number, with the
   * same externalKey idempotency. The only message allowed outside the contact's 24-hour window.
   */
  async sendTemplate(req: proto.messaging.SendTemplateRequest__Output, deadline?: grpc.Deadline): Promise<proto.messaging.SendByTicketResponse> {
    const { tenantId, channelId } = req;
    const given = checkTemplateSend(req);
    const channel = await this.channels.wabaChannel(tenantId, channelId);
    const template = requirePhoneFor(requireApproved(await this.channels.template(channel, req.name, req.language), req.name, req.language), req.number);
    const components = checkParameters(template, given as object[]);
    const message: TemplateMessage = { name: template.name, language: { code: template.language }, ...(components.length && { components }) };

    const messageId = newMessageId();
    const keyId = req.externalKey ? `${tenantId}:${req.externalKey}` : '';
    if (keyId) {
      const held = await this.claim(tenantId, keyId, 0, messageId, deadline);
      if (held !== true) return { idempotent: true, skipped: true, ticketId: held.ticketId };
    }
    let opened: proto.tickets.Ticket__Output | undefined;
    try {
      const found = await this.peers.tickets.OpenForContact({ tenantId, channelId, number: req.number, pinTicketId: req.ticketId });
      if (!found.ticket) throw notFound('ticket');
      if (found.created) opened = found.ticket;
      const ticket = found.ticket;
      await this.channels.target(tenantId, ticket, { template: true });
      const out = { messageId, body: renderBody(template, components), externalKey: req.externalKey, interactive: { type: 'waba/template', json: JSON.stringify(message) } };
      await this.enqueue(ticket, channel, out, { close: req.isClosed }, deadline);
      return { messageId, ticketId: ticket.id, status: 'queued', idempotent: false, skipped: false };
    } catch (err) {
      if (opened) await this.discard(tenantId, opened.id);
      if (keyId) await this.repo.releaseKey(keyId, messageId);
      throw err;
    }
  }

  /** GET {root}/templates: the waba channel's catalog, read again from Meta when TEMPLATE_CACHE_MS old. */
  async listTemplates(req: proto.messaging.ListTemplatesRequest__Output): Promise<proto.messaging.ListTemplatesResponse> {
    const channel = await this.channels.get(req.tenantId, req.channelId);
    const { templates } = await this.peers.engines.ListTemplates({ channel: channelTarget(channel), refresh: true });
    return { templates };
  }

  /** The request's file, stored; a voice note must be an audio. */
  private async resolveMedia(tenantId: number, media: proto.messaging.Media__Output): Promise<ResolvedMedia> {
    const resolved = await this.media.resolve(tenantId, media);
    if (media.voice && !resolved.mimeType.startsWith('audio/')) {
      throw new DomainError('unsupported_media', 'ERR_UNSUPPORTED_MEDIA_TYPE', `A voice note must be an audio file, not ${resolved.mimeType}`);
    }
    return resolved;
  }

  /**
   * The commit point of every send: the ticket change the send asks for (reopen, or close with
   * `isClosed`), then the message stored `queued`. The ticket changes first so that a message is
   * never queued on a ticket left in the wrong state; if the message cannot be stored, the ticket is
   * put back as it was, and the caller gets an error with nothing accepted. A request whose time is
   * nearly up is refused before the insert rather than answered 504 after it.
   */
  private async enqueue(
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

  async getMedia(mediaId: string) {
    return this.media.get(mediaId);
  }

  async getMessage(tenantId: number, messageId: string) {
    const doc = await this.repo.findById(tenantId, messageId);
    if (!doc) throw notFound('message');
    return toMessage(doc);
  }

  /**
   * Claims an externalKey for this send; false when a send with the key was accepted within the
   * window (the caller answers skipped). A claim whose send never stored its message (its process
   * died between the two writes) is taken over once that send's deadline has passed, since it can
   * no longer commit; before that, the other send may still be under way: ERR_SEND_IN_PROGRESS.
   */
  private async claim(tenantId: number, keyId: string, ticketId: number, messageId: string, deadline?: grpc.Deadline): Promise<true | { ticketId: number }> {
    const now = Date.now();
    const doc = { _id: keyId, ticketId, messageId, createdAt: new Date(now), acceptBy: new Date(deadlineMs(deadline) ?? now + DEFAULT_ACCEPT_MS) };
    // Skipped: the ticket the first send went to (a send by number claims before its ticket is known).
    const skip = (held: { ticketId: number }) => ({ ticketId: held.ticketId || ticketId });
    for (let round = 0; round < 2; round++) {
      if (await this.repo.claimKey(doc)) return true;
      const held = await this.repo.findKey(keyId);
      if (!held) continue; // released meanwhile (a refused send): claim it again
      if (held.createdAt.getTime() < now - SEND_KEY_WINDOW_MS) return (await this.repo.takeOverKey(doc, held)) || skip(held);
      const accepted = await this.repo.findById(tenantId, held.messageId);
      if (accepted) return skip(accepted);
      if ((held.acceptBy?.getTime() ?? held.createdAt.getTime() + DEFAULT_ACCEPT_MS) < now) return (await this.repo.takeOverKey(doc, held)) || skip(held);
      throw conflict('ERR_SEND_IN_PROGRESS', 'A send with this externalKey is under way; retry it in a moment');
    }
    return skip({ ticketId });
  }
}
