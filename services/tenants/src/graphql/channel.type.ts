import { Directive, Field, Int, ObjectType } from 'type-graphql';
import { DateTime } from '@convo/kit/graphql/scalars';
import type { ChannelDoc } from '../domain/records';
import type { ChannelType, HybridMode } from '../domain/catalog';
import { ChannelStatusEnum, ChannelTypeEnum, HybridModeEnum } from './enums';

/**
 * A channel (session). Provider secrets (tokens) are never exposed here. Other subgraphs name a
 * channel with its tenant (the key is `id tenantId`, not `id` alone, so the query planner always
 * sends both): a reference never reaches another tenant's channel.
 */
@Directive('@key(fields: "id tenantId")')
@ObjectType()
export class Channel {
  @Field(() => Int) id!: number;
  @Field(() => Int) tenantId!: number;
  @Field() name!: string;
  @Field(() => ChannelStatusEnum) status!: ChannelDoc['status'];
  @Field(() => ChannelTypeEnum) type!: ChannelType;
  @Field(() => HybridModeEnum) hybridMode!: HybridMode;
  @Field(() => Int, { nullable: true }) linkedChannelId?: number;
  @Field() webhookEnabled!: boolean;
  @Field({ description: 'Where customer webhooks go ("" when none); the signing secret is not here' }) webhookUrl!: string;
  @Field() webhookIncoming!: boolean;
  @Field({
    description:
      "waba: templates of category MARKETING go through Meta's Marketing Messages API (POST /{phone-number-id}/marketing_messages)",
  })
  marketingMessagesApi!: boolean;
  @Field(() => DateTime) createdAt!: string;
  @Field(() => DateTime) updatedAt!: string;
}
