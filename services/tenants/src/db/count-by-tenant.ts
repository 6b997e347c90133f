import { anyOf } from '@convo/kit/mongo';
import type { Model } from 'mongoose';

/**
 * How many documents each of these tenants has, in one command: a `$match` on the tenant (the
 * collection's tenant-first index) grouped by tenant. A tenant with none is absent from the map.
 */
export async function countByTenant<D>(model: Model<D>, tenantIds: readonly number[]): Promise<Map<number, number>> {
  const counted = await model
    .aggregate<{ _id: number; n: number }>([{ $match: { tenantId: anyOf(tenantIds) } }, { $group: { _id: '$tenantId', n: { $sum: 1 } } }])
    .exec();
  return new Map(counted.map((c) => [c._id, c.n]));
}
