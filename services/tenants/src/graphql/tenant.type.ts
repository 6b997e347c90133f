import { Directive, Field, Int, ObjectType } from 'type-graphql';
import { DateTime } from '@convo/kit/graphql/scalars';
import type { PaymentGateway, PaymentStatus } from '../domain/catalog';
import { AllowedChannelEnum, PaymentGatewayEnum, PaymentStatusEnum, TenantStatusEnum } from './enums';

@Directive('@key(fields: "id")')
@ObjectType()
export class Tenant {
  @Field(() => Int) id!: number;
  @Field() name!: string;
  @Field(() => TenantStatusEnum) status!: 'active' | 'inactive';
  @Field(() => Int) maxUsers!: number;
  @Field(() => Int) maxConnections!: number;
  @Field() identity!: string;
  @Field(() => Int, { nullable: true }) planId?: number;
  @Field(() => PaymentGatewayEnum, { nullable: true, description: 'null: none chosen' }) paymentGateway!: PaymentGateway | null;
  @Field(() => PaymentStatusEnum, { nullable: true, description: 'null: no payment gateway' }) paymentStatus!: PaymentStatus | null;
  @Field(() => [AllowedChannelEnum], { description: 'Empty: every channel type its plan admits.' }) allowedChannels!: string[];
  @Field(() => DateTime) createdAt!: string;
}

@ObjectType()
export class Plan {
  @Field(() => Int) id!: number;
  @Field() name!: string;
  @Field(() => Int) maxUsers!: number;
  @Field(() => Int) maxConnections!: number;
  @Field(() => [String]) features!: string[];
  @Field(() => [AllowedChannelEnum], { description: 'Empty: the plan admits every channel type.' }) allowedChannels!: string[];
}
