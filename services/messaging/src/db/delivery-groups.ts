import type { Model, QueryFilter } from 'mongoose';

export interface DeliveryGroup {
  channelId: number;
  status: string;
  count: number;
  oldest: Date | null;
}

/**
 * Counts a tenant's documents per (channel, status) among `statuses`, then reads the oldest of each
 * group by its index (FerretDB's $group has no $min): 1 + one small read per group.
 */
export async function groupByChannelAndStatus<T extends { tenantId: number; channelId: number; status: string; createdAt: Date }>(
  model: Model<T>,
  tenantId: number,
  statuses: string[],
): Promise<DeliveryGroup[]> {
  const groups = await model
    .aggregate<{ _id: { channelId: number; status: string }; count: number }>([
      { $match: { tenantId, status: { $in: statuses } } },
      { $group: { _id: { channelId: '$channelId', status: '$status' }, count: { $sum: 1 } } },
    ])
    .exec();
  return Promise.all(
    groups.map(async (g) => {
      const { channelId, status } = g._id;
      const oldest = await model
        .findOne({ tenantId, status, channelId } as QueryFilter<T>, { createdAt: 1 })
        .sort({ createdAt: 1 })
        .lean<{ createdAt?: Date }>()
        .exec();
      return { channelId, status, count: g.count, oldest: oldest?.createdAt ? new Date(oldest.createdAt) : null };
    }),
  );
}
