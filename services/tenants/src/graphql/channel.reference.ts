import { findByIds, requestLoader } from '@convo/kit/graphql/loaders';
import type { ChannelsService } from '../domain/channels.service';

/**
 * Channels named by another subgraph (a page of tickets names each ticket's channel): one loader
 * per request, so a page whose 50 tickets share a channel reads it once. A reference names the
 * channel with its tenant (the key `id tenantId`): a channel of another tenant than the one named
 * is answered as absent.
 */
export const channelReference =
  (channels: ChannelsService) => async (ref: { id: number | string; tenantId: number | string }, context: unknown) => {
    const loader = requestLoader(context, 'Channel', (ids: readonly number[]) => findByIds(ids, (id) => channels.findAnyChannel(id)));
    const doc = await loader.load(Number(ref.id));
    if (!doc || doc.tenantId !== Number(ref.tenantId)) return null;
    return doc;
  };
