import { DomainError, type grpc, notFound, type proto, validation } from '@convo/kit';
import type { ResolvedMedia } from '../media.service';
import { newMessageId } from '../message-id';
import { checkGroupSend, checkNumberSend, checkRouteVia, routeAuto } from '../send-checks';
import type { Acceptance } from './acceptance';

/**
 * A group is a contact of its channel addressed by its JID (`<id>@g.us`), kept where an e-mail
 * contact keeps its address: every later send to its ticket goes to the group too.
 */
export const groupJid = (groupId: string) => `${groupId}@g.us`;

/**
 * Accepts a message for a ticket: the ticket rules, then the message stored `queued` for the
 * dispatcher. Nothing here waits for a provider; a success means the message is durably queued.
 *
 * A send by number (ticket_id 0) addresses the contact on the integration's channel instead: its
 * current ticket there, opened when it has none (as the waba routes do), then accepted exactly as
 * a send to that ticket. Its file is fetched before a ticket is opened, and a ticket it opened is
 * discarded if the message is not accepted, so a refused send opens nothing.
 */
export async function sendByTicket(
  core: Acceptance,
  req: proto.messaging.SendByTicketRequest__Output,
  deadline?: grpc.Deadline,
): Promise<proto.messaging.SendByTicketResponse> {
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
    const held = await core.claim(req.tenantId, keyId, req.ticketId, messageId, deadline);
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
      if (toGroup) await core.channels.groupChannel(tenantId, req.channelId);
      else await core.channels.numberChannel(tenantId, req.channelId, req.number, req.validateNumber);
      media = hasMedia ? await resolveMedia(core, tenantId, req.media!) : undefined;
      const contact = toGroup ? { number: '', email: groupJid(req.groupId) } : { number: req.number };
      const found = await core.peers.tickets.OpenForContact({ tenantId, channelId: req.channelId, ...contact });
      if (!found.ticket) throw notFound('ticket');
      ticket = found.ticket;
      if (found.created) opened = ticket;
      channel = await core.channels.target(tenantId, ticket, routing);
    } else {
      ({ ticket, answer: channel } = await core.ticketTaking(tenantId, req.ticketId, routing));
    }
    if (hasMedia && !media) media = await resolveMedia(core, tenantId, req.media!);
    const out = { messageId, body: req.body, externalKey: req.externalKey, media, voice: req.media?.voice, routeAuto: routing.routeAuto };
    await core.enqueue(ticket, channel, out, { reopen: req.reopen, close: req.isClosed }, deadline);
    return { messageId, ticketId: ticket.id, status: 'queued', idempotent: false, skipped: false };
  } catch (err) {
    // Nothing was accepted: a ticket opened for it goes, and the key is freed so that a corrected
    // retry goes through.
    if (opened) await core.discard(req.tenantId, opened.id);
    if (keyId) await core.repo.releaseKey(keyId, messageId);
    throw err;
  }
}

/** The request's file, stored; a voice note must be an audio. */
async function resolveMedia(core: Acceptance, tenantId: number, media: proto.messaging.Media__Output): Promise<ResolvedMedia> {
  const resolved = await core.media.resolve(tenantId, media);
  if (media.voice && !resolved.mimeType.startsWith('audio/')) {
    throw new DomainError(
      'unsupported_media',
      'ERR_UNSUPPORTED_MEDIA_TYPE',
      `A voice note must be an audio file, not ${resolved.mimeType}`,
    );
  }
  return resolved;
}
