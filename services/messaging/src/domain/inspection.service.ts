import { checkPageSize, conflict, notFound } from '@convo/kit';
import { groupByKey } from '@convo/kit/mongo';
import type { DeliveryGroup } from '../db/delivery-groups';
import type { MessagesRepository } from '../db/messages.repository';
import { MESSAGE_STATUSES, type MessageDoc, type MessageStatus } from '../db/models';
import type { AttemptDoc, OutboxEventDoc, OutboxStatus } from '../outbox/outbox.models';

export { MESSAGE_STATUSES, type MessageDoc, type MessageStatus };

/** A ticket's conversation in the console: at most this many messages at once, pages of at most MAX_PAGE. */
export const TICKET_MESSAGES_LIMIT = 200;
export const MAX_MESSAGE_PAGE = 100;
export const MAX_WEBHOOK_DELIVERIES = 200;

/** One channel's delivery health: queued and failed messages, pending and dead webhooks. */
export interface ChannelDeliveryHealth {
  channelId: number;
  queued: number;
  oldestQueuedAgeSeconds: number | null;
  failed: number;
  webhooksPending: number;
  oldestWebhookPendingAgeSeconds: number | null;
  webhooksDead: number;
}

const ageSeconds = (oldest: Date | null | undefined, now: number) =>
  oldest ? Math.max(0, Math.round((now - oldest.getTime()) / 1000)) : null;

/**
 * What the operator console (GraphQL) reads of messages and customer webhooks, and the replay of a
 * dead webhook event: the rules (bounds, what may be replayed) live here, the resolvers only map.
 * Every read is by tenant, except the lookup by id another subgraph names (its own rules apply).
 */
export class InspectionService {
  constructor(private readonly repo: MessagesRepository) {}

  findMessage(tenantId: number, id: string): Promise<MessageDoc | null> {
    return this.repo.findById(tenantId, id);
  }

  /** A message named by another subgraph, by id alone. */
  findAnyMessage(id: string): Promise<MessageDoc | null> {
    return this.repo.findAnyById(id);
  }

  /** The ticket's messages, oldest first (at most TICKET_MESSAGES_LIMIT). */
  ticketMessages(tenantId: number, ticketId: number): Promise<MessageDoc[]> {
    return this.repo.listByTicket(tenantId, ticketId, TICKET_MESSAGES_LIMIT);
  }

  /** One page of the ticket's conversation, oldest first, with the ticket's message count. */
  async ticketMessagePage(
    tenantId: number,
    ticketId: number,
    offset: number,
    first: number,
  ): Promise<{ docs: MessageDoc[]; totalCount: number }> {
    checkPageSize(first, MAX_MESSAGE_PAGE);
    const [docs, totalCount] = await Promise.all([
      this.repo.pageByTicket(tenantId, ticketId, offset, first),
      this.repo.countByTicket(tenantId, ticketId),
    ]);
    return { docs, totalCount };
  }

  /** The ticket's newest `last` messages, oldest first, with the ticket's message count: the console's conversation. */
  async ticketLatestMessages(tenantId: number, ticketId: number, last: number): Promise<{ docs: MessageDoc[]; totalCount: number }> {
    checkPageSize(last, MAX_MESSAGE_PAGE, 'last');
    const [newestFirst, totalCount] = await Promise.all([
      this.repo.latestByTicket(tenantId, ticketId, last),
      this.repo.countByTicket(tenantId, ticketId),
    ]);
    return { docs: newestFirst.reverse(), totalCount };
  }

  /** A tenant's channels that have queued or failed messages, or pending or dead webhooks, by channel id. */
  async deliveryHealth(tenantId: number): Promise<ChannelDeliveryHealth[]> {
    const [messages, webhooks] = await Promise.all([this.repo.deliveryGroups(tenantId), this.repo.outbox.deliveryGroups(tenantId)]);
    const now = Date.now();
    const channels = new Map<number, ChannelDeliveryHealth>();
    const of = (channelId: number) => {
      let h = channels.get(channelId);
      if (!h) {
        h = {
          channelId,
          queued: 0,
          oldestQueuedAgeSeconds: null,
          failed: 0,
          webhooksPending: 0,
          oldestWebhookPendingAgeSeconds: null,
          webhooksDead: 0,
        };
        channels.set(channelId, h);
      }
      return h;
    };
    const apply = (g: DeliveryGroup) => {
      const h = of(g.channelId);
      if (g.status === 'queued') Object.assign(h, { queued: g.count, oldestQueuedAgeSeconds: ageSeconds(g.oldest, now) });
      if (g.status === 'failed') h.failed = g.count;
      if (g.status === 'pending') Object.assign(h, { webhooksPending: g.count, oldestWebhookPendingAgeSeconds: ageSeconds(g.oldest, now) });
      if (g.status === 'dead') h.webhooksDead = g.count;
    };
    [...messages, ...webhooks].forEach(apply);
    return [...channels.values()].sort((a, b) => a.channelId - b.channelId);
  }

  /** Sends a dead webhook event again: one more attempt, due now. Only a dead one may be replayed. */
  async replayWebhookDelivery(tenantId: number, id: string): Promise<OutboxEventDoc> {
    const replayed = await this.repo.outbox.replayDead(tenantId, id);
    if (replayed) return replayed;
    const event = await this.repo.outbox.findForTenant(tenantId, id);
    if (!event) throw notFound('webhook delivery');
    throw conflict('ERR_DELIVERY_NOT_DEAD', `Only a dead delivery can be replayed; this one is ${event.status}`);
  }

  /** A tenant's webhook events, newest first (at most MAX_WEBHOOK_DELIVERIES). */
  async webhookDeliveries(
    tenantId: number,
    filter: { status?: OutboxStatus; channelId?: number },
    limit: number,
  ): Promise<OutboxEventDoc[]> {
    checkPageSize(limit, MAX_WEBHOOK_DELIVERIES, 'limit');
    return this.repo.outbox.list({ tenantId, ...filter }, limit);
  }

  findWebhookDelivery(tenantId: number, id: string): Promise<OutboxEventDoc | null> {
    return this.repo.outbox.findForTenant(tenantId, id);
  }

  /**
   * Every attempt of each of these webhook events of the tenant, oldest first: one query for a page
   * of events. Event ids are unique, and an attempt of another tenant's event is never answered.
   */
  async webhookAttemptsOf(tenantId: number, eventIds: readonly string[]): Promise<Map<string, AttemptDoc[]>> {
    const attempts = (await this.repo.outbox.attemptsOfEvents(eventIds)).filter((a) => a.tenantId === tenantId);
    return groupByKey(eventIds, attempts, (a) => a.eventId);
  }
}
