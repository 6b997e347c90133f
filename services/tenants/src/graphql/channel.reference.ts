import type { TenantsRepository } from '../db/tenants.repository';
import { toChannel } from '../domain/tenants.service';

export const channelReference = (repo: TenantsRepository) => async (ref: { id: number | string }) => {
  const doc = await repo.findChannelById(Number(ref.id));
  return doc ? toChannel(doc) : null;
};
