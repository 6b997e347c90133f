import { checkPageSize, type proto } from '@convo/kit';
import { Arg, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { ChannelsRepository } from '../db/channels.repository';
import type { PlanDoc } from '../db/models';
import type { TenantsRepository } from '../db/tenants.repository';
import type { PlansService } from '../domain/plans.service';
import { toChannel, toTenant } from '../domain/records';
import { Channel } from './channel.type';
import { AllowedChannelEnum } from './enums';
import { Plan, Tenant } from './tenant.type';

/** The tenant as GraphQL shows it: without a payment gateway, gateway and payment status are null (REST: ""). */
export const toGraphTenant = (t: proto.tenants.Tenant): Tenant =>
  ({ ...t, paymentGateway: t.paymentGateway || null, paymentStatus: t.paymentStatus || null }) as Tenant;

const toPlan = (p: PlanDoc): Plan => ({ ...p, allowedChannels: p.allowedChannels ?? [], id: p._id });

@Resolver(() => Tenant)
export class TenantResolver {
  constructor(
    private readonly tenantsRepo: TenantsRepository,
    private readonly channelsRepo: ChannelsRepository,
    private readonly plansService: PlansService,
  ) {}

  @Query(() => [Tenant])
  async tenants(@Arg('limit', () => Int, { defaultValue: 100 }) limit: number): Promise<Tenant[]> {
    checkPageSize(limit, 500, 'limit');
    return (await this.tenantsRepo.pageTenants({}, 0, limit)).map((t) => toGraphTenant(toTenant(t)));
  }

  @Query(() => Tenant, { nullable: true })
  async tenant(@Arg('id', () => Int) id: number): Promise<Tenant | null> {
    const doc = await this.tenantsRepo.findTenant(id);
    return doc ? toGraphTenant(toTenant(doc)) : null;
  }

  @Query(() => [Channel])
  async channels(@Arg('tenantId', () => Int) tenantId: number): Promise<Channel[]> {
    return (await this.channelsRepo.listChannels(tenantId)).map((c) => toChannel(c) as Channel);
  }

  @Query(() => [Plan])
  async plans(): Promise<Plan[]> {
    return (await this.tenantsRepo.listPlans()).map(toPlan);
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
