import { Arg, Int, Query, Resolver } from 'type-graphql';
import type { DeliveriesRepository, DeliveryDoc } from '../db/deliveries.repository';
import type { EnginesService } from '../domain/engines.service';
import { checkPageSize, type ChannelType } from '@convo/kit';
import { ChannelTypeEnum } from '@convo/kit/graphql/enums';
import { Delivery } from './delivery.type';

export const toDelivery = (d: DeliveryDoc): Delivery => ({ ...d, id: d._id, driver: d.driver as ChannelType, createdAt: d.createdAt.toISOString() });

@Resolver(() => Delivery)
export class DeliveryResolver {
  constructor(
    private readonly repo: DeliveriesRepository,
    private readonly engines: EnginesService,
  ) {}

  @Query(() => [Delivery], { description: 'Latest provider calls of a channel, newest first.' })
  async deliveries(
    @Arg('channelId', () => Int) channelId: number,
    @Arg('limit', () => Int, { defaultValue: 50 }) limit: number,
  ): Promise<Delivery[]> {
    checkPageSize(limit, 500, 'limit');
    return (await this.repo.listByChannel(channelId, limit)).map(toDelivery);
  }

  @Query(() => [ChannelTypeEnum], { description: 'Channel kinds that have a driver.' })
  driverKinds(): string[] {
    return this.engines.kinds();
  }
}
