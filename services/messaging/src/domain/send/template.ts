import { channelTarget, type grpc, notFound, type proto } from '@convo/kit';
import { newMessageId } from '../message-id';
import { checkTemplateSend } from '../send-checks';
import { checkParameters, renderBody, requireApproved, requirePhoneFor, type TemplateMessage } from '../templates';
import type { Acceptance } from './acceptance';

/**
 * A template of a waba channel: checked against the channel's catalog (it exists, is APPROVED,
 * and each component gets the parameters it takes) before anything is opened, then queued on the
 * contact's current ticket (found or opened, or the pinned one) like a send by number, with the
 * same externalKey idempotency. The only message allowed outside the contact's 24-hour window.
 */
export async function sendTemplate(
  core: Acceptance,
  req: proto.messaging.SendTemplateRequest__Output,
  deadline?: grpc.Deadline,
): Promise<proto.messaging.SendByTicketResponse> {
  const { tenantId, channelId } = req;
  const given = checkTemplateSend(req);
  const channel = await core.channels.wabaChannel(tenantId, channelId);
  const template = requirePhoneFor(
    requireApproved(await core.channels.template(channel, req.name, req.language), req.name, req.language),
    req.number,
  );
  const components = checkParameters(template, given as object[]);
  const message: TemplateMessage = { name: template.name, language: { code: template.language }, ...(components.length && { components }) };

  const messageId = newMessageId();
  const keyId = req.externalKey ? `${tenantId}:${req.externalKey}` : '';
  if (keyId) {
    const held = await core.claim(tenantId, keyId, 0, messageId, deadline);
    if (held !== true) return { idempotent: true, skipped: true, ticketId: held.ticketId };
  }
  let opened: proto.tickets.Ticket__Output | undefined;
  try {
    const found = await core.peers.tickets.OpenForContact({ tenantId, channelId, number: req.number, pinTicketId: req.ticketId });
    if (!found.ticket) throw notFound('ticket');
    if (found.created) opened = found.ticket;
    const ticket = found.ticket;
    await core.channels.target(tenantId, ticket, { template: true });
    const out = {
      messageId,
      body: renderBody(template, components),
      externalKey: req.externalKey,
      interactive: { type: 'waba/template', json: JSON.stringify(message) },
    };
    await core.enqueue(ticket, channel, out, { close: req.isClosed }, deadline);
    return { messageId, ticketId: ticket.id, status: 'queued', idempotent: false, skipped: false };
  } catch (err) {
    if (opened) await core.discard(tenantId, opened.id);
    if (keyId) await core.repo.releaseKey(keyId, messageId);
    throw err;
  }
}

/** GET {root}/templates: the waba channel's catalog, read again from Meta when TEMPLATE_CACHE_MS old. */
export async function listTemplates(
  core: Acceptance,
  req: proto.messaging.ListTemplatesRequest__Output,
): Promise<proto.messaging.ListTemplatesResponse> {
  const channel = await core.channels.get(req.tenantId, req.channelId);
  const { templates } = await core.peers.engines.ListTemplates({ channel: channelTarget(channel), refresh: true });
  return { templates };
}
