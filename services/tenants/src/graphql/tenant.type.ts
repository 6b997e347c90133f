import { Directive, Field, Int, ObjectType } from 'type-graphql';
import { DateTime } from '@convo/kit/dist/graphql/scalars';

@Directive('@key(fields: "id")')
@ObjectType()
export class Tenant {
  @Field(() => Int) id!: number;
  @Field() name!: string;
  @Field() status!: string;
  @Field(() => Int) maxUsers!: number;
  @Field(() => Int) maxConnections!: number;
  @Field() identity!: string;
  @Field(() => Int, { nullable: true }) planId?: number;
  @Field() paymentGateway!: string;
  @Field() paymentStatus!: string;
  @Field(() => [String]) allowedChannels!: string[];
  @Field(() => DateTime) createdAt!: string;
}

@ObjectType()
export class Plan {
  @Field(() => Int) id!: number;
  @Field() name!: string;
  @Field(() => Int) maxUsers!: number;
  @Field(() => Int) maxConnections!: number;
  @Field(() => [String]) features!: string[];
  /** Empty: the plan admits every channel type. */
  @Field(() => [String]) allowedChannels!: string[];
}
