import type { ChannelsRepository } from '../db/channels.repository';
import { toChannel } from '../domain/records';

export const channelReference = (repo: ChannelsRepository) => async (ref: { id: number | string }) => {
  const doc = await repo.findChannelById(Number(ref.id));
  return doc ? toChannel(doc) : null;
};
