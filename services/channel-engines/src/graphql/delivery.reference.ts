import { findByIds, requestLoader } from '@convo/kit/graphql/loaders';
import type { DeliveriesRepository } from '../db/deliveries.repository';
import { toDelivery } from './delivery.resolver';

/** Deliveries named by another subgraph: one loader per request, one `_id` read per distinct delivery. */
export const deliveryReference = (repo: DeliveriesRepository) => async (ref: { id: number | string }, context: unknown) => {
  const loader = requestLoader(context, 'Delivery', (ids: readonly string[]) => findByIds(ids, (id) => repo.findById(id)));
  const doc = await loader.load(String(ref.id));
  return doc ? toDelivery(doc) : null;
};
