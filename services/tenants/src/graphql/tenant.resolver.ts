import type { proto } from '@convo/kit';
import { Arg, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { ChannelsService } from '../domain/channels.service';
import type { PlanDoc, PlansService } from '../domain/plans.service';
import type { TenantsService } from '../domain/tenants.service';
import { Channel } from './channel.type';
import { AllowedChannelEnum } from './enums';
import { Plan, Tenant } from './tenant.type';
import { NoTenantData, TenantScoped } from '@convo/kit/graphql/subgraph';

/** The tenant as GraphQL shows it: without a payment gateway, gateway and payment status are null (REST: ""). */
export const toGraphTenant = (t: proto.tenants.Tenant): Tenant =>
  ({ ...t, paymentGateway: t.paymentGateway || null, paymentStatus: t.paymentStatus || null }) as Tenant;

export const toPlan = (p: PlanDoc): Plan => ({ ...p, allowedChannels: p.allowedChannels ?? [], id: p._id });

@Resolver(() => Tenant)
export class TenantResolver {
  constructor(
    private readonly tenantsService: TenantsService,
    private readonly channelsService: ChannelsService,
    private readonly plansService: PlansService,
  ) {}

  @Query(() => [Tenant])
  async tenants(@Arg('limit', () => Int, { defaultValue: 100 }) limit: number): Promise<Tenant[]> {
    return (await this.tenantsService.tenantsFrom(0, limit, 500, undefined, 'limit')).map(toGraphTenant);
  }

  @Query(() => Tenant, { nullable: true })
  @TenantScoped('id')
  async tenant(@Arg('id', () => Int) id: number): Promise<Tenant | null> {
    const tenant = await this.tenantsService.findTenant(id);
    return tenant ? toGraphTenant(tenant) : null;
  }

  @Query(() => [Channel])
  @TenantScoped('tenantId')
  async channels(@Arg('tenantId', () => Int) tenantId: number): Promise<Channel[]> {
    return (await this.channelsService.listChannels(tenantId)) as Channel[];
  }

  @Query(() => [Plan])
  @NoTenantData()
  async plans(): Promise<Plan[]> {
    return (await this.plansService.listPlans()).map(toPlan);
  }

  @Mutation(() => Plan)
  async createPlan(
    @Arg('name') name: string,
    @Arg('maxUsers', () => Int) maxUsers: number,
    @Arg('maxConnections', () => Int) maxConnections: number,
    @Arg('features', () => [String], { defaultValue: [] }) features: string[],
    @Arg('allowedChannels', () => [AllowedChannelEnum], { defaultValue: [] }) allowedChannels: string[],
  ): Promise<Plan> {
    return toPlan(await this.plansService.createPlan({ name, maxUsers, maxConnections, features, allowedChannels }));
  }
}
