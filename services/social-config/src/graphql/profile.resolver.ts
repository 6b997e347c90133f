import { Arg, Int, Query, Resolver } from 'type-graphql';
import type { ProfilesService } from '../domain/profiles.service';
import { ChannelProfile } from './profile.type';
import { TenantScoped } from '@convo/kit/graphql/subgraph';

@Resolver(() => ChannelProfile)
export class ProfileResolver {
  constructor(private readonly profiles: ProfilesService) {}

  @Query(() => ChannelProfile)
  @TenantScoped('tenantId')
  channelProfile(@Arg('tenantId', () => Int) tenantId: number, @Arg('channelId', () => Int) channelId: number) {
    return this.profiles.get(tenantId, channelId);
  }
}
