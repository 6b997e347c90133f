import type { Logger, ServiceClient, proto } from '@convo/kit';
import type { MessagesRepository } from '../db/messages.repository';
import type { MessageDoc, Reaction } from '../db/models';
import { changeEventId, messageEventId, outboxEvent } from '../outbox/events';
import { deletePayload, editPayload, messagePayload, reactionPayload } from '../outbox/payloads';
import { contactOfEvent, eventIdentities, incomingDoc, inboundTime, ingestResult as result } from './inbound-event';

type InboundEvent = proto.channelEngines.InboundEvent__Output;
type Channel = proto.tenants.Channel__Output;
type Ticket = proto.tickets.Ticket__Output;
type Result = proto.messaging.IngestResult;

/**
 * How long an echo waits for a send of ours to the same contact that may be in flight (its
 * provider id unknown until the provider answers): well under the gateway's deadline for the
 * webhook, longer than a provider usually takes to answer.
 */
const ECHO_WAIT_MS = 5_000;
const ECHO_POLL_MS = 100;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface ChangePeers {
  tickets: ServiceClient<'tickets'>;
}

/**
 * The rest of the conversation beyond the contact's messages (CONVENTIONS.md "The whole
 * conversation"): what the business sent from elsewhere (an echo), and reactions, edits and
 * deletions of stored messages. Each is idempotent: a provider's redelivery changes nothing twice
 * and writes its customer webhook once (event ids derived from what it reports).
 */
export class ConversationChanges {
  constructor(
    private readonly repo: MessagesRepository,
    private readonly peers: ChangePeers,
    private readonly log: Logger,
    private readonly wantsIncoming: (channel: Channel) => boolean,
  ) {}

  // ---- messages sent from elsewhere -------------------------------------------------------------

  /**
   * An outgoing message the provider reports (fromMe): ours, sent through this platform, is known
   * by its provider id and stored already; anything else is stored as an outgoing message of the
   * contact's current ticket. It does not touch the 24-hour window (only the contact's messages do).
   */
  async echo(channel: Channel, e: InboundEvent): Promise<Result> {
    if (!e.providerMessageId) return result('ignored');
    const ours = await this.ourSend(channel, e);
    if (ours) return result('duplicate', ours._id, ours.ticketId);
    const messageId = `echo:${channel.id}:${e.providerMessageId}`;
    const known = await this.repo.findAnyById(messageId);
    if (known) return this.forwardEcho(known, channel, e, 'duplicate');
    const { ticket } = await this.peers.tickets.OpenForContact({
      tenantId: channel.tenantId,
      channelId: channel.id,
      ...eventIdentities(e),
      email: '',
      name: '',
      inboundAt: '',
    });
    const doc: MessageDoc = {
      ...incomingDoc(messageId, channel, ticket!, e, false),
      direction: 'out',
      status: 'sent',
      echo: true,
      to: contactOfEvent(e),
    };
    if (!(await this.repo.insertOnce(doc))) return this.forwardEcho((await this.repo.findAnyById(messageId))!, channel, e, 'duplicate');
    return this.forwardEcho(doc, channel, e, 'stored', ticket!);
  }

  /**
   * Our own send this echo reports, or null. Race-free without a write on the send path: a send
   * stays `queued` until the one write that stores its provider id with `sent`, so the check that
   * no send to the contact is in flight is read BEFORE the look-up by provider id. When one may be
   * in flight (the echo outran the provider's answer to the send), the echo waits for it.
   */
  private async ourSend(channel: Channel, e: InboundEvent): Promise<MessageDoc | null> {
    const to = [e.from, e.lid, e.bsuid].filter(Boolean);
    const until = Date.now() + ECHO_WAIT_MS;
    for (;;) {
      const inFlight = await this.repo.sendInFlight(channel.tenantId, channel.id, to);
      const sent = await this.findByProviderId(channel, e.providerMessageId, false);
      if (sent || !inFlight) return sent;
      if (Date.now() > until) {
        this.log.warn(
          { channelId: channel.id, providerMessageId: e.providerMessageId },
          'echo stored while a send to the contact was still in flight',
        );
        return null;
      }
      await sleep(ECHO_POLL_MS);
    }
  }

  private async forwardEcho(doc: MessageDoc, channel: Channel, e: InboundEvent, outcome: string, ticket?: Ticket): Promise<Result> {
    const id = messageEventId(doc._id);
    if (this.wantsIncoming(channel) && (ticket || !(await this.repo.outbox.exists(id)))) {
      const current = ticket ?? (await this.peers.tickets.GetTicket({ tenantId: doc.tenantId, ticketId: doc.ticketId }));
      const contact = { number: e.from, name: '', email: '', bsuid: e.bsuid, parentBsuid: e.parentBsuid, lid: e.lid, username: e.username };
      const body = messagePayload(doc, current, channel, contact, e.rawJson);
      await this.repo.outbox.add(
        outboxEvent({ id, tenantId: doc.tenantId, channelId: channel.id, method: 'message', target: 'channel', body }),
      );
    }
    return result(outcome, doc._id, doc.ticketId);
  }

  // ---- reactions, edits, deletions --------------------------------------------------------------

  /** A reaction, an edit or a deletion of the message `target_id` names (of this channel only). */
  async change(channel: Channel, e: InboundEvent): Promise<Result> {
    const doc = e.targetId ? await this.findByProviderId(channel, e.targetId, true) : null;
    if (!doc || doc.tenantId !== channel.tenantId) return result('change_unknown_message');
    const at = new Date(inboundTime(e));
    const applied =
      e.kind === 'reaction' ? await this.react(doc, e, at) : e.kind === 'edit' ? await this.edit(doc, e, at) : await this.remove(doc);
    if (this.wantsIncoming(channel) && applied !== 'stale') {
      const key = e.kind === 'delete' ? 'deleted' : `${e.providerMessageId || at.getTime()}:${e.fromMe}:${e.body}`;
      const id = changeEventId(e.kind, doc._id, key);
      if (!(await this.repo.outbox.exists(id))) {
        const ticket = await this.peers.tickets.GetTicket({ tenantId: doc.tenantId, ticketId: doc.ticketId });
        const body =
          e.kind === 'reaction'
            ? reactionPayload(doc, ticket, e.body, e.fromMe, at)
            : e.kind === 'edit'
              ? editPayload(doc, ticket, e.body, e.fromMe, at)
              : deletePayload(doc, ticket, e.fromMe, at);
        await this.repo.outbox.add(
          outboxEvent({
            id,
            tenantId: doc.tenantId,
            channelId: channel.id,
            method: e.kind as 'reaction' | 'edit' | 'delete',
            target: 'channel',
            body,
          }),
        );
      }
    }
    return result(applied === 'applied' ? `${e.kind}_applied` : 'duplicate', doc._id, doc.ticketId);
  }

  /** One reaction per side: a new one replaces that side's, "" removes it; an older one than the stored is stale. */
  private async react(doc: MessageDoc, e: InboundEvent, at: Date): Promise<'applied' | 'unchanged' | 'stale'> {
    const reactions = doc.reactions ?? [];
    const mine = reactions.find((r) => r.fromMe === e.fromMe);
    if (mine && mine.at > at) return 'stale';
    if ((mine?.emoji ?? '') === e.body && (!mine || mine.at.getTime() === at.getTime())) return 'unchanged';
    const next: Reaction[] = [
      ...reactions.filter((r) => r.fromMe !== e.fromMe),
      ...(e.body ? [{ emoji: e.body, fromMe: e.fromMe, at }] : []),
    ];
    await this.repo.change(doc, {}, { reactions: next });
    return 'applied';
  }

  /** The new text; the one it replaces joins the history, with when it was written. Applied once (conditional on the body read). */
  private async edit(doc: MessageDoc, e: InboundEvent, at: Date): Promise<'applied' | 'unchanged' | 'stale'> {
    if (doc.body === e.body) return 'unchanged';
    if (doc.editedAt && doc.editedAt > at) return 'stale';
    const written = doc.editedAt ?? doc.providerTimestamp ?? doc.createdAt;
    const editHistory = [...(doc.editHistory ?? []), { body: doc.body, at: written }];
    const applied = await this.repo.change(doc, { body: doc.body }, { body: e.body, edited: true, editedAt: at, editHistory });
    return applied ? 'applied' : 'unchanged';
  }

  private async remove(doc: MessageDoc): Promise<'applied' | 'unchanged'> {
    if (doc.deleted) return 'unchanged';
    await this.repo.change(doc, {}, { deleted: true });
    return 'applied';
  }

  /**
   * The message a provider id names on this channel: the contact's (its id derives from it), one
   * sent (by us, or an echo), or one sent through this channel for a linked waba channel.
   * `incoming`: look at the contact's messages too (an echo never is one).
   */
  private async findByProviderId(channel: Channel, providerId: string, incoming: boolean): Promise<MessageDoc | null> {
    const theirs = incoming ? await this.repo.findAnyById(`in:${channel.id}:${providerId}`) : null;
    return (
      theirs ??
      (await this.repo.findOutgoingByProviderId(channel.id, providerId)) ??
      (channel.type !== 'waba' ? await this.repo.findSentThroughLinked(channel.id, providerId) : null)
    );
  }
}
