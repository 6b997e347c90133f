import { grpc, type Logger, type ServiceClient, type proto } from '@convo/kit';
import { createHash } from 'node:crypto';
import { ANY_TENANT, type ChannelLookup } from '../channels/channel-lookup';
import type { MessagesRepository } from '../db/messages.repository';
import type { MessageDoc } from '../db/models';
import { messageEventId, outboxEvent, serviceEventId } from '../outbox/events';
import { messagePayload, serviceStatusPayload } from '../outbox/payloads';
import {
  contactOfEvent,
  contactTickets,
  eventIdentities,
  hasCode,
  ignored,
  inboundTime,
  incomingDoc,
  ingestResult as result,
} from './inbound-event';
import { InboundStatuses } from './inbound-statuses';
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

const CONNECTION_STATUSES = new Set(['CONNECTED', 'DISCONNECTED']);
/**
 * What counts as an answer to a satisfaction survey: a reply that is only a digit from 1 to 5 (the
 * survey asks exactly that), on a channel whose contact's latest ticket has a survey sent and not
 * answered. Anything else is an ordinary message, even while a survey waits.
 */
const RATING = /^[1-5]$/;
/** A Messenger watermark applies to this many of the contact's latest sent messages at most. */
/** How many contacts of one delivery are worked on at once. */
const INGEST_LANES = 4;

/** Pairs of identities a status linked lately: each is asked of tickets once in this long. */
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
  private readonly statuses: InboundStatuses;

  constructor(
    private readonly repo: MessagesRepository,
    private readonly peers: IngestPeers,
    private readonly log: Logger,
    private readonly channels: ChannelLookup,
    channelCacheMs = 5_000,
  ) {
    this.linkedWindows = new LinkedWindows(peers, channelCacheMs);
    this.changes = new ConversationChanges(repo, peers, log, wantsIncoming);
    this.statuses = new InboundStatuses(repo, peers);
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
        return this.onChannel(e, (c) => this.statuses.apply(c, e));
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
      const latest = (await contactTickets(this.peers.tickets, channel, contact))[0];
      if (latest && awaitsAnswer(latest)) {
        // The answer is a message of the contact: on waba it opens the 24-hour window too.
        if (channel.type === 'waba') {
          await this.peers.tickets.OpenForContact({
            tenantId: channel.tenantId,
            channelId: channel.id,
            ...eventIdentities(e),
            email: '',
            name: '',
            pinTicketId: latest.id,
            inboundAt: inboundTime(e),
          });
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
    const from = {
      number: e.from,
      name: e.contactName,
      email: e.email,
      bsuid: e.bsuid,
      parentBsuid: e.parentBsuid,
      lid: e.lid,
      username: e.username,
    };
    const body = messagePayload(doc, ticket, channel, from, e.rawJson);
    await this.repo.outbox.add(
      outboxEvent({
        id: messageEventId(doc._id),
        tenantId: doc.tenantId,
        channelId: channel.id,
        method: 'message',
        target: 'channel',
        body,
      }),
    );
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
      this.log.info(
        { channelId: e.channelId, channelType: e.channelType, accountId: e.accountId },
        'inbound event for an unknown channel ignored',
      );
      return null;
    }
  }
}

/** The channel an event names, as a key: its id, or its account. */
const channelKey = (e: InboundEvent) => (e.channelId ? `id:${e.channelId}` : `${e.channelType}:${e.accountId}`);
