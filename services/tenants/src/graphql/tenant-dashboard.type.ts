import { Field, Int, ObjectType } from 'type-graphql';
import { DateTime } from '@convo/kit/graphql/scalars';
import { UserProfileEnum } from './enums';
import { Tenant } from './tenant.type';

@ObjectType({ description: "A tenant's use of its plan's limits (0 = unlimited)." })
export class TenantUsage {
  @Field(() => Int) users!: number;
  @Field(() => Int) maxUsers!: number;
  @Field(() => Int) connections!: number;
  @Field(() => Int) maxConnections!: number;
}

@ObjectType('TenantUser')
export class TenantUser {
  @Field(() => Int) id!: number;
  @Field() name!: string;
  @Field() email!: string;
  @Field(() => UserProfileEnum) profile!: 'admin' | 'user';
}

@ObjectType({ description: 'An API integration. Its token is shown only by createIntegration.' })
export class Integration {
  @Field() apiId!: string;
  @Field() name!: string;
  @Field(() => Int) channelId!: number;
  @Field(() => Int) userId!: number;
  @Field() urlServiceStatus!: string;
  @Field() urlMessageStatus!: string;
  @Field(() => DateTime) createdAt!: string;
}

@ObjectType()
export class CreatedIntegration {
  @Field(() => Integration) integration!: Integration;
  @Field({ description: 'The bearer token of the external API; shown here once, stored only as a hash.' }) authToken!: string;
}

@ObjectType()
export class TenantPageInfo {
  @Field() hasNextPage!: boolean;
  @Field(() => String, { nullable: true }) endCursor!: string | null;
}

@ObjectType()
export class TenantConnection {
  @Field(() => [Tenant]) nodes!: Tenant[];
  @Field(() => TenantPageInfo) pageInfo!: TenantPageInfo;
  @Field(() => Int) totalCount!: number;
}
