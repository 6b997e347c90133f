import type { ProfilesRepository } from '../db/profiles.repository';
import { toProfile } from '../domain/profiles.service';

export const profileReference = (repo: ProfilesRepository) => async (ref: { channelId?: number | string }) => {
  const doc = await repo.findById(Number(ref.channelId));
  return doc ? toProfile(doc) : null;
};
