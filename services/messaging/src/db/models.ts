import { Schema, type Connection } from 'mongoose';

/**
 * Outgoing: `queued` (accepted, waiting for the dispatcher) → `sent` (the provider took it) →
 * `delivered` → `read`, or `failed` with the provider's reason. Incoming messages are `delivered`.
 */
export const MESSAGE_STATUSES = ['queued', 'sent', 'delivered', 'read', 'failed'] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

export interface MessageDoc {
  _id: string;
  tenantId: number;
  ticketId: number;
  channelId: number;
  direction: 'in' | 'out';
  body: string;
  status: MessageStatus;
  /*
   * The fields below are optional: a message stores only those it has (a text message leaves out
   * its media, interactive, e-mail and error fields, read back as ''). Every field a document
   * carries costs the embedded database a decode on each read and update of it.
   */
  providerMessageId?: string;
  error?: string;
  /** The caller's mediaUrl, when the file came from one. */
  mediaUrl?: string;
  mediaId?: string;
  mimeType?: string;
  fileName?: string;
  externalKey?: string;
  /** Outgoing: the contact's address at acceptance (a number, a platform user id, or an e-mail). */
  to?: string;
  /** Outgoing, while queued: delivery attempts so far and when the next one is due. */
  attempts?: number;
  nextAttemptAt?: Date | null;
  /** Interactive sends: "<route>/<type>" and the validated body (JSON), to match a later reply. */
  interactiveType?: string;
  interactiveJson?: string;
  /** E-mail subject (webmail channels). */
  subject?: string;
  /** An audio to be sent as a voice note (the /voice route). */
  voice?: boolean;
  /** Incoming messages: what the provider said about them (see domain/ingest.service.ts). */
  messageType?: string;
  replyTo?: string;
  /** A Meta media id, fetched with the channel's token, when the provider gave no URL. */
  providerMediaId?: string;
  /** The provider's own time of the message (createdAt is when we stored it). */
  providerTimestamp?: Date | null;
  /** The contact's reply was taken as the answer to the ticket's satisfaction survey. */
  evaluationAnswer?: boolean;
  /**
   * Outgoing on a waba channel with routeVia "auto": the end of the contact's 24-hour window as
   * acceptance read it. The dispatcher sends through the linked channel only before it.
   */
  routeVia?: 'auto';
  windowUntil?: Date;
  /** Outgoing on waba: the way it left ("official" or "linked"), set when sent; absent on other kinds. */
  via?: string;
  /** Outgoing through a linked channel: that channel, whose engine reports the message's statuses. */
  viaChannelId?: number;
  /**
   * Outgoing on waba: Meta's `pricing` of the message as its statuses reported it, stored by the
   * status change that carries it; absent until one did, and on other kinds.
   */
  pricing?: MessagePricing;
  /** Outgoing: the W3C traceparent of the request that queued it; the dispatcher continues that trace. */
  traceparent?: string;
  /** Outgoing sent from elsewhere (an engine's fromMe, a Meta echo): not through this platform. */
  echo?: boolean;
  /** Reactions received, one per side (the contact's, the business's). */
  reactions?: Reaction[];
  /** The provider reported an edit: body is the latest text; the earlier ones, oldest first, with when each was written. */
  edited?: boolean;
  editedAt?: Date;
  editHistory?: { body: string; at: Date }[];
  /** Deleted for everyone at the provider (its content kept). */
  deleted?: boolean;
  createdAt: Date;
  updatedAt: Date;
}

/** What Meta reports of a message's price (statuses[].pricing): charged or not, the model ("PMP"), the category. */
export interface MessagePricing {
  billable: boolean;
  pricingModel: string;
  category: string;
}

export interface Reaction {
  emoji: string;
  fromMe: boolean;
  at: Date;
}

/** An externalKey claim of sendMessageByTicket; `_id` is `<tenantId>:<key>`, unique by nature. */
export interface SendKeyDoc {
  _id: string;
  ticketId: number;
  messageId: string;
  createdAt: Date;
  /** The claiming send's deadline: after it, that send can no longer store its message. */
  acceptBy?: Date;
}

const opts = { versionKey: false as const };

export function registerModels(conn: Connection) {
  const message = new Schema<MessageDoc>(
    {
      _id: String,
      tenantId: { type: Number, required: true },
      ticketId: Number,
      channelId: Number,
      direction: String,
      body: String,
      status: String,
      providerMessageId: { type: String, default: '' },
      error: { type: String, default: '' },
      mediaUrl: { type: String, default: '' },
      mediaId: { type: String, default: '' },
      mimeType: { type: String, default: '' },
      fileName: { type: String, default: '' },
      externalKey: { type: String, default: '' },
      to: { type: String, default: '' },
      attempts: { type: Number, default: 0 },
      nextAttemptAt: { type: Date, default: null },
      interactiveType: { type: String, default: '' },
      interactiveJson: { type: String, default: '' },
      subject: { type: String, default: '' },
      voice: { type: Boolean, default: undefined },
      messageType: { type: String, default: '' },
      replyTo: { type: String, default: '' },
      providerMediaId: { type: String, default: '' },
      providerTimestamp: { type: Date, default: null },
      evaluationAnswer: { type: Boolean, default: false },
      traceparent: { type: String, default: undefined },
      routeVia: { type: String, default: undefined },
      windowUntil: { type: Date, default: undefined },
      via: { type: String, default: undefined },
      viaChannelId: { type: Number, default: undefined },
      pricing: {
        type: new Schema<MessagePricing>({ billable: Boolean, pricingModel: String, category: String }, { _id: false }),
        default: undefined,
      },
      echo: { type: Boolean, default: undefined },
      reactions: { type: [{ _id: false, emoji: String, fromMe: Boolean, at: Date }], default: undefined },
      edited: { type: Boolean, default: undefined },
      editedAt: { type: Date, default: undefined },
      editHistory: { type: [{ _id: false, body: String, at: Date }], default: undefined },
      deleted: { type: Boolean, default: undefined },
      createdAt: Date,
      updatedAt: Date,
    },
    opts,
  );
  // A ticket's messages in (createdAt, _id) order, either way: the one the read path creates too.
  message.index({ tenantId: 1, ticketId: 1, createdAt: 1, _id: 1 });
  // lastInboundSubject: the contact's latest e-mail on a ticket, newest first.
  message.index({ tenantId: 1, ticketId: 1, direction: 1, createdAt: 1 });
  // A provider's status names our sent message by its provider id.
  message.index({ channelId: 1, providerMessageId: 1, direction: 1 });
  // ... also when the message left through a linked channel (coexistence): that channel reports it.
  message.index({ viaChannelId: 1, providerMessageId: 1 });
  // The dispatcher's queue: tickets with queued messages, and one ticket's in acceptance order
  // (with its tenant, the shard key's first field: one shard answers).
  message.index({ status: 1, tenantId: 1, ticketId: 1, createdAt: 1, _id: 1 });
  // The queue's oldest message (convo_delivery_queue_oldest_age_seconds, which autoscaling reads).
  message.index({ status: 1, createdAt: 1 });
  // The dashboard's delivery health: a tenant's queued and failed messages per channel.
  message.index({ tenantId: 1, status: 1, channelId: 1, createdAt: 1 });
  // An echo's question: is a send of ours to this contact on this channel still queued
  // (sendInFlight)? Its contact pinned, not a scan of the channel's queue, which a campaign fills
  // while every send's echo asks it.
  message.index({ tenantId: 1, channelId: 1, to: 1, status: 1 });
  const sendKey = new Schema<SendKeyDoc>({ _id: String, ticketId: Number, messageId: String, createdAt: Date, acceptBy: Date }, opts);
  return {
    Message: conn.model<MessageDoc>('Message', message, 'messages'),
    SendKey: conn.model<SendKeyDoc>('SendKey', sendKey, 'send_keys'),
  };
}
