import { grpc, TtlCache, type ServiceClient, type proto } from '@convo/kit';
import type { MessagesRepository } from '../db/messages.repository';
import type { MessageDoc, MessageStatus } from '../db/models';
import { statusEventId } from '../outbox/events';
import { contactTickets, eventIdentities, hasCode, ignored, ingestResult as result } from './inbound-event';

// The delivery statuses of our messages, as providers report them: per message (by the provider's
// id), or as Messenger's watermark (everything sent before a time).

type InboundEvent = proto.channelEngines.InboundEvent__Output;
type Channel = proto.tenants.Channel__Output;
type Result = proto.messaging.IngestResult;

const PROVIDER_STATUSES = new Set<string>(['sent', 'delivered', 'read', 'failed']);
/** A watermark moves at most this many messages forward at once. */
const WATERMARK_LIMIT = 200;
const LINKED_PAIRS_MS = 10 * 60_000;

export class InboundStatuses {
  /** Identity pairs that statuses linked lately (see linkStatusIdentities). */
  private readonly linkedPairs = new TtlCache<string, true>(LINKED_PAIRS_MS, 50_000, 'linked-pairs');

  constructor(
    private readonly repo: MessagesRepository,
    private readonly peers: { tickets: ServiceClient<'tickets'> },
  ) {}

  async apply(channel: Channel, e: InboundEvent): Promise<Result> {
    if (!PROVIDER_STATUSES.has(e.status)) return ignored();
    const status = e.status as MessageStatus;
    // Meta's pricing rides on the status write itself: no other command. A status that changes
    // nothing (Meta's "sent" after the dispatcher's) writes nothing, so its pricing waits for
    // "delivered", which carries it too (a message is charged when delivered).
    const fields: Partial<MessageDoc> = {
      ...(status === 'failed' && { error: e.error || 'failed' }),
      ...(e.pricing && { pricing: { billable: e.pricing.billable, pricingModel: e.pricing.pricingModel, category: e.pricing.category } }),
    };
    await this.linkStatusIdentities(channel, e);
    if (!e.providerMessageId) return this.watermark(channel, e, status);

    // A message a waba channel sent through this (linked) channel has its statuses reported here.
    const doc =
      (await this.repo.findOutgoingByProviderId(channel.id, e.providerMessageId)) ??
      (channel.type !== 'waba' ? await this.repo.findSentThroughLinked(channel.id, e.providerMessageId) : null);
    if (!doc) return result('status_unknown_message');
    const change = await this.repo.applyStatus(doc, status, fields);
    if (change === 'applied') return result('status_applied', doc._id, doc.ticketId);
    // A status reported again (Meta redelivers) is a duplicate even after the message moved past it;
    // one the message never had and has passed (read before delivered) is ignored.
    const seen = change === 'unchanged' || (await this.repo.outbox.exists(statusEventId(doc._id, status)));
    return result(seen ? 'duplicate' : 'ignored', doc._id, doc.ticketId);
  }

  /**
   * A status naming the contact by its phone and its BSUID together (Meta's statuses carry both)
   * links them, as a message would: tickets is asked once per pair and process in LINKED_PAIRS_MS,
   * since a contact's every message has statuses and nearly all of them carry a pair known already.
   */
  private async linkStatusIdentities(channel: Channel, e: InboundEvent): Promise<void> {
    if (!e.from || !(e.bsuid || e.parentBsuid)) return;
    const pair = `${channel.id}|${e.from}|${e.bsuid}|${e.parentBsuid}`;
    if (this.linkedPairs.get(pair)) return;
    try {
      await this.peers.tickets.OpenForContact({ tenantId: channel.tenantId, channelId: channel.id, ...eventIdentities(e), linkOnly: true });
    } catch (err) {
      // A malformed identity is not worth a redelivery of the status: the message's status still applies.
      if (!hasCode(err, grpc.status.INVALID_ARGUMENT)) throw err;
    }
    this.linkedPairs.set(pair, true);
  }

  /**
   * Messenger reports delivery and reads as a watermark ("everything sent before this time"), not
   * per message: the contact's sent messages on this channel up to the watermark move forward.
   */
  private async watermark(channel: Channel, e: InboundEvent, status: MessageStatus): Promise<Result> {
    const before = Number(e.timestampMs);
    if (!e.from || !before) return ignored();
    const ticketIds = (await contactTickets(this.peers.tickets, channel, e.from)).map((t) => t.id);
    if (!ticketIds.length) return result('status_unknown_message');
    const docs = await this.repo.listOutgoingBefore(channel.tenantId, ticketIds, new Date(before), WATERMARK_LIMIT);
    let applied = 0;
    for (const doc of docs) if ((await this.repo.applyStatus(doc, status)) === 'applied') applied++;
    return result(applied ? 'status_applied' : 'ignored', '', ticketIds[0]);
  }
}
