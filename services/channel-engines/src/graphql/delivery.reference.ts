import { findByIds, requestLoader } from '@convo/kit/graphql/loaders';
import type { EnginesService } from '../domain/engines.service';
import { toDelivery } from './delivery.resolver';

/** Deliveries named by another subgraph: one loader per request, one `_id` read per distinct delivery. */
export const deliveryReference = (engines: EnginesService) => async (ref: { id: number | string }, context: unknown) => {
  const loader = requestLoader(context, 'Delivery', (ids: readonly string[]) => findByIds(ids, (id) => engines.findDelivery(id)));
  const doc = await loader.load(String(ref.id));
  return doc ? toDelivery(doc) : null;
};
