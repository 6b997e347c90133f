import { Directive, Field, Int, ObjectType } from 'type-graphql';
import { DateTime } from '@convo/kit/dist/graphql/scalars';

@Directive('@key(fields: "id")')
@ObjectType()
export class Delivery {
  @Field() id!: string;
  @Field(() => Int) channelId!: number;
  @Field() driver!: string;
  @Field() to!: string;
  @Field() providerMessageId!: string;
  @Field() ok!: boolean;
  @Field() error!: string;
  @Field(() => Int) durationMs!: number;
  @Field(() => DateTime) createdAt!: string;
}
