import { createHash } from 'node:crypto';
import type { IntegrationUrlField, OutboxEventDoc, OutboxTarget, WebhookMethod } from './outbox.models';

/**
 * Event ids are derived from what the event reports, never random: writing the same fact twice
 * (a provider's redelivery, a retry after a crash between two writes) yields the same id, which
 * the outbox stores once. The id is also the `webhook-id` header, so a receiver deduplicates on it.
 */
export const eventId = (key: string) => `evt_${createHash('sha256').update(key).digest('hex').slice(0, 32)}`;

export const messageEventId = (messageId: string) => eventId(`message:${messageId}`);
export const statusEventId = (messageId: string, status: string) => eventId(`message.status:${messageId}:${status}`);
/** `stamp` tells two changes to the same status apart: the channel's state before the change. */
export const serviceEventId = (channelId: number, status: string, stamp: string) =>
  eventId(`service.status:${channelId}:${status}:${stamp}`);
/** A reaction, an edit or a deletion of a message: `key` tells one change of the message from another. */
export const changeEventId = (method: string, messageId: string, key: string) => eventId(`${method}:${messageId}:${key}`);
export const childEventId = (parentId: string, apiId: string) => eventId(`${parentId}:${apiId}`);

interface NewEvent {
  id: string;
  tenantId: number;
  channelId: number;
  method: WebhookMethod;
  target: OutboxTarget;
  urlField?: IntegrationUrlField;
  body: unknown;
}

export function outboxEvent(e: NewEvent, now = new Date()): OutboxEventDoc {
  return {
    _id: e.id,
    tenantId: e.tenantId,
    channelId: e.channelId,
    method: e.method,
    target: e.target,
    urlField: e.urlField ?? '',
    apiId: '',
    parentId: '',
    body: JSON.stringify(e.body),
    status: 'pending',
    attempts: 0,
    nextAttemptAt: now,
    gen: 0,
    lastError: '',
    lastHttpStatus: 0,
    createdAt: now,
    updatedAt: now,
    finishedAt: null,
  };
}

/** One integration's copy of a fanned-out event: same body, its own id and retries. */
export function childEvent(parent: OutboxEventDoc, apiId: string, now = new Date()): OutboxEventDoc {
  return {
    ...outboxEvent(
      {
        id: childEventId(parent._id, apiId),
        tenantId: parent.tenantId,
        channelId: parent.channelId,
        method: parent.method,
        target: 'integration',
        urlField: parent.urlField || undefined,
        body: null,
      },
      now,
    ),
    body: parent.body,
    apiId,
    parentId: parent._id,
  };
}
