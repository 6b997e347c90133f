import { grpc, isServiceError, TtlCache, type Logger, type ServiceClient, type proto } from '@convo/kit';
import { createHash } from 'node:crypto';
import { ANY_TENANT, type ChannelLookup } from '../channels/channel-lookup';
import type { MessagesRepository } from '../db/messages.repository';
import type { MessageDoc, MessageStatus } from '../db/models';
import { messageEventId, outboxEvent, serviceEventId, statusEventId } from '../outbox/events';
import { messagePayload, serviceStatusPayload } from '../outbox/payloads';
import { contactOfEvent, eventIdentities, inboundTime, incomingDoc } from './inbound-event';
import { ConversationChanges } from './conversation-changes';
import { LinkedWindows } from './linked-window';

type InboundEvent = proto.channelEngines.InboundEvent__Output;
type Channel = proto.tenants.Channel__Output;
type Ticket = proto.tickets.Ticket__Output;
type Result = proto.messaging.IngestResult;

export interface IngestPeers {
  tickets: ServiceClient<'tickets'>;
  tenants: ServiceClient<'tenants'>;
  engines: ServiceClient<'channelEngines'>;
}

const PROVIDER_STATUSES = new Set<string>(['sent', 'delivered', 'read', 'failed']);
const CONNECTION_STATUSES = new Set(['CONNECTED', 'DISCONNECTED']);
/**
 * What counts as an answer to a satisfaction survey: a reply that is only a digit from 1 to 5 (the
 * survey asks exactly that), on a channel whose contact's latest ticket has a survey sent and not
 * answered. Anything else is an ordinary message, even while a survey waits.
 */
const RATING = /^[1-5]$/;
/** A Messenger watermark applies to this many of the contact's latest sent messages at most. */
const WATERMARK_LIMIT = 200;
/** How many contacts of one delivery are worked on at once. */
const INGEST_LANES = 4;

const result = (outcome: string, messageId = '', ticketId = 0): Result => ({ outcome, messageId, ticketId });
/** Pairs of identities a status linked lately: each is asked of tickets once in this long. */
const LINKED_PAIRS_MS = 10 * 60_000;
const ignored = () => result('ignored');
const hasCode = (err: unknown, ...codes: grpc.status[]) => isServiceError(err) && codes.includes(err.code);
const digest = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 32);

/** A survey was sent on the ticket and not answered yet. */
const awaitsAnswer = (t: Ticket) => !!t.evaluation?.sentAt && !t.evaluation.answer;

/** The channel sends incoming messages to its customer webhook. */
const wantsIncoming = (c: Channel) => c.webhookEnabled && c.webhookIncoming && !!c.webhookUrl;

/**
 * Neutral provider events (channel-engines' ParseInbound) into stored state and outbox events.
 * The provider retries until IngestEvents answers, so every step is idempotent and an error that
 * a retry can cure (a peer down, the database) fails the whole call; an event that can never
 * succeed (an account no channel has) is `ignored` instead, or the provider would retry forever.
 */
export class IngestService {
  private readonly linkedWindows: LinkedWindows;
  private readonly changes: ConversationChanges;
  /** Identity pairs that statuses linked lately (see linkStatusIdentities). */
  private readonly linkedPairs = new TtlCache<string, true>(LINKED_PAIRS_MS, 50_000, 'linked-pairs');

  constructor(
    private readonly repo: MessagesRepository,
    private readonly peers: IngestPeers,
    private readonly log: Logger,
    private readonly channels: ChannelLookup,
    channelCacheMs = 5_000,
  ) {
    this.linkedWindows = new LinkedWindows(peers, channelCacheMs);
    this.changes = new ConversationChanges(repo, peers, log, wantsIncoming);
  }

  /** A provider webhook as received: channel-engines parses it, then its events are ingested. */
  async ingestInbound(req: proto.channelEngines.ParseInboundRequest__Output): Promise<proto.messaging.IngestInboundResponse> {
    const { events } = await this.peers.engines.ParseInbound(req);
    const { results } = events.length ? await this.ingestEvents(events) : { results: [] };
    return { received: events.length, results };
  }

  /**
   * One contact's events in the order given (its messages are stored in the order it wrote them);
   * different contacts side by side, a few at a time, so that a large batch answers in time.
   * Results come back in the order of the events.
   */
  async ingestEvents(events: InboundEvent[]): Promise<proto.messaging.IngestEventsResponse> {
    const results: Result[] = new Array(events.length);
    const lanes = new Map<string, number[]>();
    events.forEach((e, i) => {
      const lane = `${channelKey(e)}|${contactOfEvent(e) || e.email}`;
      lanes.set(lane, [...(lanes.get(lane) ?? []), i]);
    });
    const queue = [...lanes.values()];
    const worker = async () => {
      for (let lane = queue.shift(); lane; lane = queue.shift()) {
        for (const i of lane) results[i] = await this.ingest(events[i]);
      }
    };
    await Promise.all(Array.from({ length: Math.min(INGEST_LANES, queue.length) }, worker));
    return { results };
  }

  private ingest(e: InboundEvent): Promise<Result> {
    switch (e.kind) {
      case 'message':
        return e.fromMe ? this.onChannel(e, (c) => this.changes.echo(c, e)) : this.message(e);
      case 'reaction':
      case 'edit':
      case 'delete':
        return this.onChannel(e, (c) => this.changes.change(c, e));
      case 'status':
        return this.status(e);
      case 'connection':
        return this.connection(e);
      default:
        return Promise.resolve(ignored());
    }
  }

  private async onChannel(e: InboundEvent, apply: (channel: Channel) => Promise<Result>): Promise<Result> {
    const channel = await this.channelOf(e);
    return channel ? apply(channel) : ignored();
  }

  // ---- messages -------------------------------------------------------------------------------

  private async message(e: InboundEvent): Promise<Result> {
    const channel = await this.channelOf(e);
    if (!channel) return ignored();
    // One id per provider message of a channel: a redelivery hits the same `_id` (a no-op), two
    // distinct messages never share one. Providers always give an id; the fingerprint is a guard.
    const messageId = `in:${channel.id}:${e.providerMessageId || `h:${digest(`${e.from}|${e.timestampMs}|${e.body}|${e.rawJson}`)}`}`;
    const known = await this.repo.findAnyById(messageId);
    if (known) return this.duplicate(known, channel, e);

    const target = await this.ticketFor(channel, e);
    if (!target) return ignored();
    // Before the message is stored: a failure here makes the provider send it again. Only a phone
    // has a window on the linked engine (it knows no BSUID).
    if (e.from) await this.linkedWindows.contactWrote(channel, e.from, e.contactName, inboundTime(e));
    const doc = incomingDoc(messageId, channel, target.ticket, e, target.answersSurvey);
    if (!(await this.repo.insertOnce(doc))) {
      // A concurrent delivery of the same message stored it first.
      return this.duplicate((await this.repo.findAnyById(messageId))!, channel, e);
    }
    if (doc.evaluationAnswer) await this.recordAnswer(doc);
    await this.writeMessageEvent(doc, target.ticket, channel, e);
    return result('stored', doc._id, doc.ticketId);
  }

  /**
   * A message stored before. What may not have happened yet (the process stopped between the
   * writes) is done now: both steps are idempotent, and the event id is the message's.
   */
  private async duplicate(doc: MessageDoc, channel: Channel, e: InboundEvent): Promise<Result> {
    if (doc.evaluationAnswer) await this.recordAnswer(doc);
    if (wantsIncoming(channel) && !(await this.repo.outbox.exists(messageEventId(doc._id)))) {
      const ticket = await this.peers.tickets.GetTicket({ tenantId: doc.tenantId, ticketId: doc.ticketId });
      await this.writeMessageEvent(doc, ticket, channel, e);
    }
    return result('duplicate', doc._id, doc.ticketId);
  }

  /**
   * The ticket the message belongs to: the surveyed ticket when it answers a survey (even a closed
   * one: surveys are sent before closing, and the answer must not open a new conversation), else
   * the contact's current ticket, opened when there is none (tickets' OpenForContact).
   */
  private async ticketFor(channel: Channel, e: InboundEvent): Promise<{ ticket: Ticket; answersSurvey: boolean } | null> {
    const rating = RATING.test(e.body.trim());
    const contact = contactOfEvent(e);
    if (rating && contact) {
      const latest = (await this.contactTickets(channel, contact))[0];
      if (latest && awaitsAnswer(latest)) {
        // The answer is a message of the contact: on waba it opens the 24-hour window too.
        if (channel.type === 'waba') {
          await this.peers.tickets.OpenForContact({ tenantId: channel.tenantId, channelId: channel.id, ...eventIdentities(e), email: '', name: '', pinTicketId: latest.id, inboundAt: inboundTime(e) });
        }
        return { ticket: latest, answersSurvey: true };
      }
    }
    try {
      const { ticket } = await this.peers.tickets.OpenForContact({
        tenantId: channel.tenantId,
        channelId: channel.id,
        // Whatever identities the provider gave: linked to one contact (merged when each had one).
        ...eventIdentities(e),
        email: e.email,
        name: e.contactName,
        // The official channel's 24-hour window opens with the contact's message (when Meta got it,
        // never later than now: a webhook redelivered hours late must not reopen a closed window).
        inboundAt: channel.type === 'waba' ? inboundTime(e) : '',
      });
      return { ticket: ticket!, answersSurvey: rating && awaitsAnswer(ticket!) };
    } catch (err) {
      if (!hasCode(err, grpc.status.INVALID_ARGUMENT)) throw err;
      this.log.warn({ channelId: channel.id, error: (err as Error).message }, 'inbound message without a usable contact ignored');
      return null;
    }
  }

  /**
   * The contact's tickets on this channel, newest first. Tickets looks contacts up by any identity
   * (a number, digits up to 20 with numeric PSIDs/IGSIDs; a BSUID; a LID); an id it does not take
   * as one finds nothing.
   */
  private async contactTickets(channel: Channel, number: string): Promise<Ticket[]> {
    try {
      const { tickets } = await this.peers.tickets.FindContactTickets({ tenantId: channel.tenantId, number, all: true });
      return tickets.filter((t) => t.channelId === channel.id);
    } catch (err) {
      if (hasCode(err, grpc.status.INVALID_ARGUMENT)) return [];
      throw err;
    }
  }

  /** The first answer is kept: a later one (or a repeat after a crash) is refused and ignored. */
  private async recordAnswer(doc: MessageDoc): Promise<void> {
    try {
      await this.peers.tickets.RecordEvaluationAnswer({ tenantId: doc.tenantId, ticketId: doc.ticketId, answer: doc.body.trim() });
    } catch (err) {
      if (!hasCode(err, grpc.status.ABORTED)) throw err;
    }
  }

  private async writeMessageEvent(doc: MessageDoc, ticket: Ticket, channel: Channel, e: InboundEvent): Promise<void> {
    if (!wantsIncoming(channel)) return;
    const from = { number: e.from, name: e.contactName, email: e.email, bsuid: e.bsuid, parentBsuid: e.parentBsuid, lid: e.lid, username: e.username };
    const body = messagePayload(doc, ticket, channel, from, e.rawJson);
    await this.repo.outbox.add(
      outboxEvent({ id: messageEventId(doc._id), tenantId: doc.tenantId, channelId: channel.id, method: 'message', target: 'channel', body }),
    );
  }

  // ---- delivery statuses of our messages --------------------------------------------------------

  private async status(e: InboundEvent): Promise<Result> {
    if (!PROVIDER_STATUSES.has(e.status)) return ignored();
    const channel = await this.channelOf(e);
    if (!channel) return ignored();
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
    const ticketIds = (await this.contactTickets(channel, e.from)).map((t) => t.id);
    if (!ticketIds.length) return result('status_unknown_message');
    const docs = await this.repo.listOutgoingBefore(channel.tenantId, ticketIds, new Date(before), WATERMARK_LIMIT);
    let applied = 0;
    for (const doc of docs) if ((await this.repo.applyStatus(doc, status)) === 'applied') applied++;
    return result(applied ? 'status_applied' : 'ignored', '', ticketIds[0]);
  }

  // ---- connection of an engine ------------------------------------------------------------------

  /**
   * A change of the channel's status, and only a change: an engine repeating "open" is no event.
   * The event is written first, its id derived from the channel's state before the change (status
   * and updatedAt, read fresh): a retry after a crash between the two writes finds the same state,
   * so the same id, and completes the change; engines' connection events carry no id of their own.
   */
  private async connection(e: InboundEvent): Promise<Result> {
    if (!CONNECTION_STATUSES.has(e.connection)) return ignored();
    const channel = await this.channelOf(e);
    if (!channel) return ignored();
    const current = await this.peers.tenants.GetChannel({ tenantId: channel.tenantId, channelId: channel.id });
    if (current.status === e.connection) return result('duplicate');
    await this.repo.outbox.add(
      outboxEvent({
        id: serviceEventId(channel.id, e.connection, `${current.status}@${current.updatedAt}`),
        tenantId: channel.tenantId,
        channelId: channel.id,
        method: 'service.status',
        target: 'integrations',
        urlField: 'urlServiceStatus',
        body: serviceStatusPayload(current, e.connection, new Date()),
      }),
    );
    const updated = await this.peers.tenants.SetChannelStatus({ tenantId: channel.tenantId, channelId: channel.id, status: e.connection });
    this.channels.changed(updated);
    return result('connection_applied');
  }

  // ---- channels ---------------------------------------------------------------------------------

  /**
   * Engine events name the channel; Meta events name the account (phone-number id, page id). Read
   * through the channel lookup, which keeps found channels for a few seconds and never an unknown
   * one, so a channel created a moment ago is not missed.
   */
  private async channelOf(e: InboundEvent): Promise<Channel | null> {
    try {
      return e.channelId ? await this.channels.get(ANY_TENANT, e.channelId) : await this.channels.byAccount(e.channelType, e.accountId);
    } catch (err) {
      if (!hasCode(err, grpc.status.NOT_FOUND, grpc.status.INVALID_ARGUMENT)) throw err;
      this.log.info({ channelId: e.channelId, channelType: e.channelType, accountId: e.accountId }, 'inbound event for an unknown channel ignored');
      return null;
    }
  }
}

/** The channel an event names, as a key: its id, or its account. */
const channelKey = (e: InboundEvent) => (e.channelId ? `id:${e.channelId}` : `${e.channelType}:${e.accountId}`);
