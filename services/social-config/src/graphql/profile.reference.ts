import { findByIds, requestLoader } from '@convo/kit/graphql/loaders';
import type { ProfilesService } from '../domain/profiles.service';

/** Profiles named by another subgraph: one loader per request, one `_id` read per distinct channel. */
export const profileReference = (profiles: ProfilesService) => async (ref: { channelId?: number | string }, context: unknown) => {
  const loader = requestLoader(context, 'ChannelProfile', (ids: readonly number[]) => findByIds(ids, (id) => profiles.findByChannel(id)));
  return (await loader.load(Number(ref.channelId))) ?? null;
};
