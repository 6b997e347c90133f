import { Directive, Field, Int, ObjectType } from 'type-graphql';
import { DateTime } from '@convo/kit/dist/graphql/scalars';

/** A channel (session). Provider secrets (tokens) are never exposed here. */
@Directive('@key(fields: "id")')
@ObjectType()
export class Channel {
  @Field(() => Int) id!: number;
  @Field(() => Int) tenantId!: number;
  @Field() name!: string;
  @Field() status!: string;
  @Field() type!: string;
  @Field() hybridMode!: string;
  @Field(() => Int, { nullable: true }) linkedChannelId?: number;
  @Field() webhookEnabled!: boolean;
  @Field({ description: 'Where customer webhooks go ("" when none); the signing secret is not here' }) webhookUrl!: string;
  @Field() webhookIncoming!: boolean;
  @Field(() => DateTime) createdAt!: string;
  @Field(() => DateTime) updatedAt!: string;
}
