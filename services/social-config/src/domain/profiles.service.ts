import type { proto, ServiceClient } from '@convo/kit';
import {
  MENU_ITEM_TYPES,
  type MenuItemDoc,
  type PersistentMenuDoc,
  type ProfileDoc,
  type ProfilesRepository,
} from '../db/profiles.repository';

export { MENU_ITEM_TYPES, type MenuItemDoc };

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
  constructor(
    private readonly repo: ProfilesRepository,
    private readonly tenants: Pick<ServiceClient<'tenants'>, 'GetChannel'>,
  ) {}

  /**
   * A channel of the tenant never configured has an empty profile, not an error. A channel that
   * is not the tenant's (another tenant's, or none) is 404 ERR_CHANNEL_NOT_FOUND: channels are the
   * tenants service's, asked with the tenant only when no profile is stored (a stored one was
   * written for that tenant's channel, and is found by tenant and channel).
   */
  async get(tenantId: number, channelId: number): Promise<ChannelProfileView> {
    const doc = await this.repo.find(tenantId, channelId);
    if (doc) return toProfile(doc);
    await this.tenants.GetChannel({ tenantId, channelId });
    return toProfile(emptyProfile(tenantId, channelId));
  }

  /** A stored profile by its channel id alone (another subgraph names it; its tenant check is the caller's). */
  async findByChannel(channelId: number): Promise<ChannelProfileView | null> {
    const doc = await this.repo.findById(channelId);
    return doc ? toProfile(doc) : null;
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
