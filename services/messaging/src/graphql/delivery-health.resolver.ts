import { conflict, notFound } from '@convo/kit';
import { Arg, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { DeliveryGroup } from '../db/delivery-groups';
import type { MessagesRepository } from '../db/messages.repository';
import { ChannelDeliveryHealth } from './delivery-health.type';
import { toWebhookDelivery } from './webhook-delivery.resolver';
import { WebhookDelivery } from './webhook-delivery.type';

const ageSeconds = (oldest: Date | null | undefined, now: number) => (oldest ? Math.max(0, Math.round((now - oldest.getTime()) / 1000)) : null);

/** Delivery health per channel and the replay of a dead webhook event (the operator console's views). */
@Resolver()
export class DeliveryHealthResolver {
  constructor(private readonly repo: MessagesRepository) {}

  @Query(() => [ChannelDeliveryHealth], { description: "A tenant's channels that have queued or failed messages, or pending or dead webhooks." })
  async deliveryHealth(@Arg('tenantId', () => Int) tenantId: number): Promise<ChannelDeliveryHealth[]> {
    const [messages, webhooks] = await Promise.all([this.repo.deliveryGroups(tenantId), this.repo.outbox.deliveryGroups(tenantId)]);
    const now = Date.now();
    const channels = new Map<number, ChannelDeliveryHealth>();
    const of = (channelId: number) => {
      let h = channels.get(channelId);
      if (!h) {
        h = { channelId, queued: 0, oldestQueuedAgeSeconds: null, failed: 0, webhooksPending: 0, oldestWebhookPendingAgeSeconds: null, webhooksDead: 0 };
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

  @Mutation(() => WebhookDelivery, { description: 'Sends a dead webhook event again: one more attempt, due now.' })
  async replayWebhookDelivery(@Arg('tenantId', () => Int) tenantId: number, @Arg('id') id: string): Promise<WebhookDelivery> {
    const replayed = await this.repo.outbox.replayDead(tenantId, id);
    if (replayed) return toWebhookDelivery(replayed);
    const event = await this.repo.outbox.findForTenant(tenantId, id);
    if (!event) throw notFound('webhook delivery');
    throw conflict('ERR_DELIVERY_NOT_DEAD', `Only a dead delivery can be replayed; this one is ${event.status}`);
  }
}
