import { Arg, Int, Query, Resolver } from 'type-graphql';
import type { DeliveryDoc, EnginesService } from '../domain/engines.service';
import type { ChannelType } from '@convo/kit';
import { ChannelTypeEnum } from '@convo/kit/graphql/enums';
import { Delivery } from './delivery.type';
import { NoTenantData } from '@convo/kit/graphql/subgraph';

export const toDelivery = (d: DeliveryDoc): Delivery => ({
  ...d,
  id: d._id,
  driver: d.driver as ChannelType,
  createdAt: d.createdAt.toISOString(),
});

@Resolver(() => Delivery)
export class DeliveryResolver {
  constructor(private readonly engines: EnginesService) {}

  @Query(() => [Delivery], { description: 'Latest provider calls of a channel, newest first.' })
  async deliveries(
    @Arg('channelId', () => Int) channelId: number,
    @Arg('limit', () => Int, { defaultValue: 50 }) limit: number,
  ): Promise<Delivery[]> {
    return (await this.engines.listDeliveries(channelId, limit)).map(toDelivery);
  }

  @Query(() => [ChannelTypeEnum], { description: 'Channel kinds that have a driver.' })
  @NoTenantData()
  driverKinds(): string[] {
    return this.engines.kinds();
  }
}
