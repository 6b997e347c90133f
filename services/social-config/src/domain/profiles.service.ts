import type { proto } from '@convo/kit';
import type { PersistentMenuDoc, ProfileDoc, ProfilesRepository } from '../db/profiles.repository';

export interface ProfilePersona {
  personaId: string;
  name: string;
  profilePictureUrl: string;
  createdAt: string;
}

/** The whole stored profile: the gRPC ChannelProfile plus what only GraphQL shows. */
export interface ChannelProfileView extends proto.socialConfig.ChannelProfile {
  persistentMenu: PersistentMenuDoc | null;
  personas: ProfilePersona[];
}

export class ProfilesService {
  constructor(private readonly repo: ProfilesRepository) {}

  /** A channel never configured has an empty profile, not an error. */
  async get(tenantId: number, channelId: number): Promise<ChannelProfileView> {
    const doc = await this.repo.find(tenantId, channelId);
    return toProfile(doc ?? emptyProfile(tenantId, channelId));
  }
}

export const emptyProfile = (tenantId: number, channelId: number): ProfileDoc => ({
  _id: channelId,
  tenantId,
  iceBreakers: [],
  greetings: [],
  persistentMenu: null,
  personas: {},
  updatedAt: new Date(0),
});

export const toProfile = (p: ProfileDoc): ChannelProfileView => ({
  channelId: p._id,
  tenantId: p.tenantId,
  iceBreakers: p.iceBreakers,
  greetings: p.greetings,
  persistentMenu: p.persistentMenu ?? null,
  personas: Object.values(p.personas ?? {})
    .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())
    .map((x) => ({ ...x, createdAt: x.createdAt.toISOString() })),
  updatedAt: p.updatedAt.toISOString(),
});
