import { type grpc, notFound, type proto } from '@convo/kit';
import { checkInteractive, isNumberRoute, requireRouteChannel } from '../interactive';
import { newMessageId } from '../message-id';
import { checkRouteVia, routeAuto } from '../send-checks';
import type { Acceptance } from './acceptance';

/**
 * An interactive message of a seed route, accepted like a text: the same ticket rules and one
 * queue, with the route's JSON for the driver of the channel's kind. Ticket routes send to their
 * ticket; waba routes address a number on the integration's channel, on the ticket the caller
 * pins or on the contact's current ticket there, found or opened by tickets.
 */
export async function sendInteractive(
  core: Acceptance,
  req: proto.messaging.SendInteractiveRequest__Output,
  deadline?: grpc.Deadline,
): Promise<proto.messaging.SendByTicketResponse> {
  checkInteractive(req);
  checkRouteVia(req.routeVia);
  const { tenantId } = req;
  const routing = { route: req.route, routeAuto: routeAuto(req.routeVia) };
  let found: proto.tickets.CreateTicketResponse__Output | undefined;
  if (isNumberRoute(req.route)) {
    // The channel is checked before a contact or ticket is opened on it: a mismatch writes nothing.
    requireRouteChannel(req.route, await core.channels.get(tenantId, req.channelId), 'apiId');
    found = await core.peers.tickets.OpenForContact({ tenantId, channelId: req.channelId, number: req.number, pinTicketId: req.ticketId });
    if (!found.ticket) throw notFound('ticket');
  }
  const opened = found?.created ? found.ticket : undefined;
  const messageId = newMessageId();
  try {
    const { ticket, answer: channel } = found?.ticket
      ? { ticket: found.ticket, answer: await core.channels.target(tenantId, found.ticket, routing) }
      : await core.ticketTaking(tenantId, req.ticketId!, routing);
    const interactive = { type: `${req.route}/${req.type}`, json: req.json };
    await core.enqueue(
      ticket,
      channel,
      { messageId, body: req.body, externalKey: '', interactive, routeAuto: routing.routeAuto },
      {},
      deadline,
    );
    return { messageId, ticketId: ticket.id, status: 'queued', idempotent: false, skipped: false };
  } catch (err) {
    if (opened) await core.discard(tenantId, opened.id);
    throw err;
  }
}
