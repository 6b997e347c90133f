import { Arg, Ctx, Field, InputType, Int, Mutation, ObjectType, Resolver } from 'type-graphql';
import type { ChannelsService } from '../domain/channels.service';
import { channelEditorOf } from '../domain/channel-fields';
import { Channel } from './channel.type';
import { ChannelStatusEnum, ChannelTypeEnum } from './enums';
import { toIntegration } from './tenant-dashboard.resolver';
import { Integration } from './tenant-dashboard.type';
import { TenantScoped } from '@convo/kit/graphql/subgraph';

/** What tenantApiCreateSession takes, less the hybrid link (a REST-only flow of its own). */
@InputType()
export class NewChannel {
  @Field() name!: string;
  @Field(() => ChannelTypeEnum, { description: "Allowed by the tenant's and its plan's allowedChannels" }) type!: string;
  @Field(() => ChannelStatusEnum, { nullable: true, description: 'The platform operator only (the engine reports it)' }) status?: string;
  @Field({ nullable: true, description: 'The platform operator only (refused to a tenant session)' }) engineUrl?: string;
  @Field({ nullable: true, description: 'Write-only: never answered. The platform operator only' }) engineToken?: string;
  @Field({ nullable: true }) tokenAPI?: string;
  @Field({ nullable: true }) wabaId?: string;
  @Field({ nullable: true, description: 'Write-only: never answered' }) bmToken?: string;
  @Field({ nullable: true }) pageId?: string;
  @Field({ nullable: true, description: 'Write-only: never answered' }) pageToken?: string;
  @Field({ nullable: true }) emailAddress?: string;
  @Field({ nullable: true }) webhookEnabled?: boolean;
  @Field({ nullable: true }) webhookUrl?: string;
  @Field({ nullable: true }) webhookIncoming?: boolean;
  @Field(() => Int, { nullable: true }) sendIntervalMs?: number;
}

/** The fields of PUT /whatsapp/{id}; absent ones stay as they are. */
@InputType()
export class ChannelChanges {
  @Field({ nullable: true }) name?: string;
  @Field(() => ChannelStatusEnum, { nullable: true, description: 'The platform operator only (the engine reports it)' }) status?: string;
  @Field({ nullable: true, description: 'The platform operator only (refused to a tenant session)' }) engineUrl?: string;
  @Field({ nullable: true, description: 'Write-only: never answered. The platform operator only' }) engineToken?: string;
  @Field({ nullable: true }) pageId?: string;
  @Field({ nullable: true, description: 'Write-only: never answered' }) pageToken?: string;
  @Field({ nullable: true }) emailAddress?: string;
  @Field({ nullable: true }) webhookEnabled?: boolean;
  @Field({ nullable: true }) webhookUrl?: string;
  @Field({ nullable: true }) webhookIncoming?: boolean;
  @Field(() => Int, { nullable: true, description: "Least milliseconds between two sends; -1: the kind's default" })
  sendIntervalMs?: number;
  @Field({ nullable: true, description: "waba only: MARKETING templates through Meta's Marketing Messages API (marketing_messages)" })
  marketingMessagesApi?: boolean;
}

@ObjectType()
export class CreatedChannel {
  @Field(() => Channel) channel!: Channel;
  @Field(() => Integration, { description: 'The API integration made with the channel (as tenantApiCreateSession)' })
  integration!: Integration;
  @Field({ description: 'Its bearer token, shown here once, stored only as a hash.' }) authToken!: string;
}

const defined = <T extends object>(o: T) =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== null)) as Partial<T>;

/** Channel administration for the dashboard: the domain service of tenantApiCreateSession and PUT /whatsapp, so the same rules and codes. */
@Resolver()
export class ChannelAdminResolver {
  constructor(private readonly channels: ChannelsService) {}

  @Mutation(() => CreatedChannel, { description: 'Creates a channel of the tenant with its API integration, as tenantApiCreateSession.' })
  @TenantScoped('tenantId')
  async createChannel(
    @Arg('tenantId', () => Int) tenantId: number,
    @Arg('channel', () => NewChannel) input: NewChannel,
    @Ctx() context: unknown,
  ): Promise<CreatedChannel> {
    const by = channelEditorOf(context, tenantId);
    const c = defined(input);
    const { whatsapp, api } = await this.channels.createSession(
      {
        tenant: tenantId,
        name: c.name ?? '',
        status: c.status ?? '',
        type: c.type ?? '',
        tokenApi: c.tokenAPI ?? '',
        wabaId: c.wabaId ?? '',
        bmToken: c.bmToken ?? '',
        engineUrl: c.engineUrl ?? '',
        engineToken: c.engineToken ?? '',
        webhookEnabled: c.webhookEnabled ?? false,
        webhookUrl: c.webhookUrl ?? '',
        webhookIncoming: c.webhookIncoming ?? false,
        pageId: c.pageId ?? '',
        pageToken: c.pageToken ?? '',
        emailAddress: c.emailAddress ?? '',
        sendIntervalMs: c.sendIntervalMs,
      },
      by,
    );
    return {
      channel: whatsapp as Channel,
      integration: toIntegration(api),
      authToken: api.authToken ?? '',
    };
  }

  @Mutation(() => Channel, {
    description: 'Edits a channel of the tenant (the fields of PUT /whatsapp/{id}); provider tokens are write-only.',
  })
  @TenantScoped('tenantId')
  async updateChannel(
    @Arg('tenantId', () => Int) tenantId: number,
    @Arg('channelId', () => Int) channelId: number,
    @Arg('changes', () => ChannelChanges) changes: ChannelChanges,
    @Ctx() context: unknown,
  ): Promise<Channel> {
    const by = channelEditorOf(context, tenantId);
    await this.channels.getTenantChannel(tenantId, channelId);
    const { whatsapp } = await this.channels.updateChannel({ id: channelId, rotateWebhookSecret: false, ...defined(changes) }, by);
    return whatsapp as Channel;
  }
}
