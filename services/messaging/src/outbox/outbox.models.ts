import { Schema, type Connection, type Model } from 'mongoose';

/** The `method` of a customer webhook body (docs/webhooks.md lists each payload). */
export const WEBHOOK_METHODS = ['message', 'message.status', 'service.status', 'reaction', 'edit', 'delete'] as const;
export type WebhookMethod = (typeof WEBHOOK_METHODS)[number];

/**
 * Where an event goes, resolved when it is delivered (never when it is written, so that a URL or
 * secret changed meanwhile is honoured):
 *   - channel: the channel's webhookUrl (incoming messages);
 *   - integrations: every API integration of the channel, fanned out by the relay into one
 *     `integration` event each (status callbacks);
 *   - integration: one integration's urlMessageStatus / urlServiceStatus.
 */
export const OUTBOX_TARGETS = ['channel', 'integrations', 'integration'] as const;
export type OutboxTarget = (typeof OUTBOX_TARGETS)[number];
export type IntegrationUrlField = 'urlMessageStatus' | 'urlServiceStatus';

/**
 * pending: waiting for (another) attempt · delivered: a 2xx · gone: the receiver answered 410 ·
 * dead: still failing after the retry window · canceled: nowhere to deliver any more (webhook
 * switched off, integration deleted) · fanned_out: an `integrations` event split into its children.
 */
export const OUTBOX_STATUSES = ['pending', 'delivered', 'gone', 'dead', 'canceled', 'fanned_out'] as const;
export type OutboxStatus = (typeof OUTBOX_STATUSES)[number];

export interface OutboxEventDoc {
  /** Deterministic (see outbox/events.ts): also the `webhook-id` header, stable across retries. */
  _id: string;
  tenantId: number;
  channelId: number;
  method: WebhookMethod;
  target: OutboxTarget;
  urlField: IntegrationUrlField | '';
  /** `integration` events: the integration and the `integrations` event it came from. */
  apiId: string;
  parentId: string;
  /** The exact JSON posted and signed; fixed when the event is written. */
  body: string;
  status: OutboxStatus;
  attempts: number;
  nextAttemptAt: Date;
  /** The highest lease generation this event is known to have had (see outbox/leases.ts). */
  gen: number;
  lastError: string;
  lastHttpStatus: number;
  createdAt: Date;
  updatedAt: Date;
  /** When the event left the pending state (delivered, gone, dead, canceled, fanned out). */
  finishedAt: Date | null;
}

export const ATTEMPT_OUTCOMES = ['delivered', 'failed', 'gone', 'dead', 'canceled', 'fanned_out', 'released'] as const;
export type AttemptOutcome = (typeof ATTEMPT_OUTCOMES)[number];

/**
 * One claim of an event, `_id` = `<eventId>#<gen>`: inserting it is how a relay takes the event
 * (a unique `_id` is atomic on FerretDB too), and the same document records what the attempt did.
 * Only the relay that inserted it ever writes it afterwards.
 */
export interface AttemptDoc {
  _id: string;
  eventId: string;
  tenantId: number;
  gen: number;
  relayId: string;
  startedAt: Date;
  leaseUntil: Date;
  finishedAt: Date | null;
  outcome: AttemptOutcome | null;
  /** The target's origin and path (no query string: it may carry the receiver's own token). */
  url: string;
  httpStatus: number;
  durationMs: number;
  error: string;
  /** Set when the attempt failed and another one was scheduled. */
  nextAttemptAt: Date | null;
  /**
   * With `nextAttemptAt`: the wait chosen (the backoff drawn, or the receiver's Retry-After), so
   * `nextAttemptAt` = `finishedAt` + `delayMs`, both stamped from one clock reading.
   */
  delayMs: number | null;
}

const opts = { versionKey: false as const };

export interface OutboxModels {
  Event: Model<OutboxEventDoc>;
  Attempt: Model<AttemptDoc>;
}

export function registerOutboxModels(conn: Connection): OutboxModels {
  if (conn.models.OutboxEvent) {
    return { Event: conn.models.OutboxEvent as Model<OutboxEventDoc>, Attempt: conn.models.OutboxAttempt as Model<AttemptDoc> };
  }
  const event = new Schema<OutboxEventDoc>(
    {
      _id: String,
      tenantId: { type: Number, required: true },
      channelId: Number,
      method: String,
      target: String,
      urlField: { type: String, default: '' },
      apiId: { type: String, default: '' },
      parentId: { type: String, default: '' },
      body: String,
      status: String,
      attempts: { type: Number, default: 0 },
      nextAttemptAt: Date,
      gen: { type: Number, default: 0 },
      lastError: { type: String, default: '' },
      lastHttpStatus: { type: Number, default: 0 },
      createdAt: Date,
      updatedAt: Date,
      finishedAt: { type: Date, default: null },
    },
    opts,
  );
  // The relay's scan (pending and due), the inspection query (webhookDeliveries: newest first,
  // by tenant alone, or by status and/or channel), and pruning.
  event.index({ status: 1, nextAttemptAt: 1 });
  event.index({ tenantId: 1, createdAt: -1, _id: -1 });
  event.index({ tenantId: 1, status: 1, createdAt: -1, _id: -1 });
  event.index({ tenantId: 1, channelId: 1, createdAt: -1, _id: -1 });
  event.index({ tenantId: 1, channelId: 1, status: 1, createdAt: -1, _id: -1 });
  event.index({ finishedAt: 1 });
  const attempt = new Schema<AttemptDoc>(
    {
      _id: String,
      eventId: String,
      tenantId: Number,
      gen: Number,
      relayId: String,
      startedAt: Date,
      leaseUntil: Date,
      finishedAt: { type: Date, default: null },
      outcome: { type: String, default: null },
      url: { type: String, default: '' },
      httpStatus: { type: Number, default: 0 },
      durationMs: { type: Number, default: 0 },
      error: { type: String, default: '' },
      nextAttemptAt: { type: Date, default: null },
      delayMs: { type: Number, default: null },
    },
    opts,
  );
  attempt.index({ eventId: 1, gen: 1 });
  attempt.index({ startedAt: 1 });
  return {
    Event: conn.model<OutboxEventDoc>('OutboxEvent', event, 'outbox'),
    Attempt: conn.model<AttemptDoc>('OutboxAttempt', attempt, 'outbox_attempts'),
  };
}
