import { findByIds, requestLoader } from '@convo/kit/graphql/loaders';
import type { ProfilesRepository } from '../db/profiles.repository';
import { toProfile } from '../domain/profiles.service';

/** Profiles named by another subgraph: one loader per request, one `_id` read per distinct channel. */
export const profileReference = (repo: ProfilesRepository) => async (ref: { channelId?: number | string }, context: unknown) => {
  const loader = requestLoader(context, 'ChannelProfile', (ids: readonly number[]) => findByIds(ids, (id) => repo.findById(id)));
  const doc = await loader.load(Number(ref.channelId));
  return doc ? toProfile(doc) : null;
};
