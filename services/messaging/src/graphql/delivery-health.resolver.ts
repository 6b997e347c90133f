import { Arg, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { InspectionService } from '../domain/inspection.service';
import { ChannelDeliveryHealth } from './delivery-health.type';
import { toWebhookDelivery } from './webhook-delivery.resolver';
import { WebhookDelivery } from './webhook-delivery.type';
import { TenantScoped } from '@convo/kit/graphql/subgraph';

/** Delivery health per channel and the replay of a dead webhook event (the operator console's views). */
@Resolver()
export class DeliveryHealthResolver {
  constructor(private readonly inspection: InspectionService) {}

  @Query(() => [ChannelDeliveryHealth], {
    description: "A tenant's channels that have queued or failed messages, or pending or dead webhooks.",
  })
  @TenantScoped('tenantId')
  deliveryHealth(@Arg('tenantId', () => Int) tenantId: number): Promise<ChannelDeliveryHealth[]> {
    return this.inspection.deliveryHealth(tenantId);
  }

  @Mutation(() => WebhookDelivery, { description: 'Sends a dead webhook event again: one more attempt, due now.' })
  @TenantScoped('tenantId')
  async replayWebhookDelivery(@Arg('tenantId', () => Int) tenantId: number, @Arg('id') id: string): Promise<WebhookDelivery> {
    return toWebhookDelivery(await this.inspection.replayWebhookDelivery(tenantId, id));
  }
}
