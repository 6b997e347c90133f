import type { DeliveriesRepository } from '../db/deliveries.repository';
import { toDelivery } from './delivery.resolver';

export const deliveryReference = (repo: DeliveriesRepository) => async (ref: { id: number | string }) => {
  const doc = await repo.findById(String(ref.id));
  return doc ? toDelivery(doc) : null;
};
