import { channelTarget, conflict, contactIdentity, notFound, type proto, type ServiceClient, validation } from '@convo/kit';
import type { ChannelLookup } from '../channels/channel-lookup';
import { requireRouteChannel } from './interactive';
import { findTemplate } from './templates';

/** Meta's customer service window: free-form messages reach a waba contact this long after it wrote. */
export const WINDOW_MS = 24 * 60 * 60 * 1000;

/**
 * Channel kinds a send by number can address: their contacts are numbers (or, on social channels,
 * the platform's user id). Web chat, marketplace and e-mail conversations are reached by ticket only.
 */
const NUMBER_KINDS = /^(whatsapp|engine_[a-h]|waba|social_a|social_b)$/;
/** Channel kinds whose engine sends to WhatsApp groups (a group JID as the recipient). */
const GROUP_KINDS = /^(whatsapp|engine_a|engine_b|engine_c)$/;

/**
 * The channel a send goes through: read through the process's channel lookup (kept for a few
 * seconds), and checked against what the send asks of it (the ticket's state, the route, the
 * number's network).
 */
export class SendChannels {
  constructor(
    private readonly engines: ServiceClient<'channelEngines'>,
    private readonly channels: Pick<ChannelLookup, 'get'>,
  ) {}

  /** The tenant's channel; another tenant's or none is NOT_FOUND. */
  get(tenantId: number, channelId: number) {
    return this.channels.get(tenantId, channelId);
  }

  /**
   * The catalog's template of that name and language: the kept copy first; a name it lacks or has
   * unapproved makes the catalog be read again (at most every TEMPLATE_CACHE_MS, channel-engines).
   */
  async template(channel: proto.tenants.Channel__Output, name: string, language: string) {
    const target = channelTarget(channel);
    const kept = findTemplate((await this.engines.ListTemplates({ channel: target, refresh: false })).templates, name, language);
    if (kept?.status === 'APPROVED') return kept;
    return findTemplate((await this.engines.ListTemplates({ channel: target, refresh: true })).templates, name, language);
  }

  /**
   * The channel a send to this ticket goes through, once the ticket may take it: not closed (unless
   * the caller reopens it), a channel of the route's kind for interactive sends, a contact to write to.
   */
  async target(
    tenantId: number,
    ticket: proto.tickets.Ticket__Output,
    opts: { reopen?: boolean; route?: string; template?: boolean },
  ): Promise<proto.tenants.Channel__Output> {
    if (ticket.status === 'closed' && !opts.reopen) {
      throw conflict(
        'ERR_TICKET_CLOSED',
        opts.route
          ? `Ticket ${ticket.id} is closed; reopen it (updateticketinfo) before sending`
          : 'Ticket is closed; send with reopen: true to reopen it',
      );
    }
    const channel = await this.get(tenantId, ticket.channelId);
    if (opts.route) requireRouteChannel(opts.route, channel, 'ticketId');
    if (!ticket.contact?.number && !ticket.contact?.email) throw notFound('contact', 'The ticket has no contact to write to');
    if (channel.type === 'waba' && !opts.template && !inWindow(ticket)) {
      const since = ticket.contact.lastInboundAt ? `last wrote at ${ticket.contact.lastInboundAt}` : 'has never written';
      throw conflict(
        'ERR_OUTSIDE_WINDOW',
        `The contact ${since}: outside the 24-hour window the official channel takes only an approved template (POST {root}/template)`,
      );
    }
    return channel;
  }

  /**
   * validateNumber: the channel's network is asked whether the number has an account there. A
   * BSUID or a LID is not asked about: the network itself gave it, and its check takes phones only.
   */
  async requireOnNetwork(channel: proto.tenants.Channel__Output, number: string): Promise<void> {
    const kind = contactIdentity(number)?.kind;
    if (kind && kind !== 'number') return;
    const { exists } = await this.engines.CheckNumber({ channel: channelTarget(channel), number: number.replace(/\D/g, '') });
    if (!exists) {
      throw validation(
        'The number has no account on the channel network',
        [{ field: 'number', message: `not on the ${channel.type} network` }],
        'ERR_NUMBER_NOT_ON_NETWORK',
      );
    }
  }

  /**
   * The integration's channel of a send by number, which must be a kind whose contacts are numbers
   * (or platform user ids), checked before anything is opened on it.
   */
  async numberChannel(tenantId: number, channelId: number, number: string, validateNumber: boolean) {
    const channel = await this.get(tenantId, channelId);
    if (!NUMBER_KINDS.test(channel.type)) {
      throw validation(
        `Sends by number go through WhatsApp and social channels; channel ${channel.id} is ${channel.type} (use sendMessageByTicket)`,
        [{ field: 'number', message: `the integration's channel is ${channel.type}, which is reached by ticket only` }],
        'ERR_CHANNEL_MISMATCH',
      );
    }
    if (validateNumber) await this.requireOnNetwork(channel, number);
    return channel;
  }

  /** The integration's channel of a template send: an official (waba) channel, else 400 ERR_CHANNEL_MISMATCH. */
  async wabaChannel(tenantId: number, channelId: number) {
    const channel = await this.get(tenantId, channelId);
    if (channel.type !== 'waba') {
      throw validation(
        `Templates go through official (waba) channels; channel ${channel.id} is ${channel.type}`,
        [{ field: 'apiId', message: `the integration's channel is ${channel.type}, not waba` }],
        'ERR_CHANNEL_MISMATCH',
      );
    }
    return channel;
  }

  /** The integration's channel of a group send: an engine kind that has groups, else 400 ERR_CHANNEL_MISMATCH. */
  async groupChannel(tenantId: number, channelId: number) {
    const channel = await this.get(tenantId, channelId);
    if (!GROUP_KINDS.test(channel.type)) {
      throw validation(
        `Groups are WhatsApp engine groups (whatsapp, engine_a, engine_b, engine_c); channel ${channel.id} is ${channel.type}`,
        [{ field: 'groupId', message: `the integration's channel is ${channel.type}, which has no groups` }],
        'ERR_CHANNEL_MISMATCH',
      );
    }
    return channel;
  }
}

/** The end of the ticket's contact's 24-hour window (the epoch when it never wrote). */
export function windowEnd(ticket: proto.tickets.Ticket__Output): Date {
  const at = ticket.contact?.lastInboundAt ? Date.parse(ticket.contact.lastInboundAt) : NaN;
  return new Date(Number.isNaN(at) ? 0 : at + WINDOW_MS);
}

/** The contact wrote within the last 24 hours. */
const inWindow = (ticket: proto.tickets.Ticket__Output) => windowEnd(ticket).getTime() > Date.now();
