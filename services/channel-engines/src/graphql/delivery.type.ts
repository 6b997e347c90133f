import { Directive, Field, Int, ObjectType } from 'type-graphql';
import { ChannelTypeEnum } from '@convo/kit/graphql/enums';
import { DateTime } from '@convo/kit/graphql/scalars';
import type { ChannelType } from '@convo/kit';

@Directive('@key(fields: "id")')
@ObjectType()
export class Delivery {
  @Field() id!: string;
  @Field(() => Int) channelId!: number;
  @Field(() => ChannelTypeEnum, { description: 'The channel kind whose driver made the call.' }) driver!: ChannelType;
  @Field() to!: string;
  @Field() providerMessageId!: string;
  @Field() ok!: boolean;
  @Field() error!: string;
  @Field(() => Int) durationMs!: number;
  @Field(() => DateTime) createdAt!: string;
}
