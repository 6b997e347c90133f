import type { proto } from '@convo/kit';
import type { ProfileDoc, ProfilesRepository } from '../db/profiles.repository';

export class ProfilesService {
  constructor(private readonly repo: ProfilesRepository) {}

  /** A channel never configured has an empty profile, not an error. */
  async get(tenantId: number, channelId: number): Promise<proto.socialConfig.ChannelProfile> {
    const doc = await this.repo.find(tenantId, channelId);
    return toProfile(doc ?? { _id: channelId, tenantId, iceBreakers: [], greetings: [], updatedAt: new Date(0) });
  }
}

export const toProfile = (p: ProfileDoc): proto.socialConfig.ChannelProfile => ({
  channelId: p._id,
  tenantId: p.tenantId,
  iceBreakers: p.iceBreakers,
  greetings: p.greetings,
  updatedAt: p.updatedAt.toISOString(),
});
