import { Arg, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { TenantsRepository } from '../db/tenants.repository';
import { toChannel, toTenant } from '../domain/tenants.service';
import { Channel } from './channel.type';
import { Plan, Tenant } from './tenant.type';

@Resolver(() => Tenant)
export class TenantResolver {
  constructor(private readonly repo: TenantsRepository) {}

  @Query(() => [Tenant])
  async tenants(@Arg('limit', () => Int, { defaultValue: 100 }) limit: number): Promise<Tenant[]> {
    return (await this.repo.listTenants(Math.min(limit, 500))).map((t) => toTenant(t) as Tenant);
  }

  @Query(() => Tenant, { nullable: true })
  async tenant(@Arg('id', () => Int) id: number): Promise<Tenant | null> {
    const doc = await this.repo.findTenant(id);
    return doc ? (toTenant(doc) as Tenant) : null;
  }

  @Query(() => [Channel])
  async channels(@Arg('tenantId', () => Int) tenantId: number): Promise<Channel[]> {
    return (await this.repo.listChannels(tenantId)).map((c) => toChannel(c) as Channel);
  }

  @Query(() => [Plan])
  async plans(): Promise<Plan[]> {
    return (await this.repo.listPlans()).map((p) => ({ ...p, id: p._id }));
  }

  @Mutation(() => Plan)
  async createPlan(
    @Arg('name') name: string,
    @Arg('maxUsers', () => Int) maxUsers: number,
    @Arg('maxConnections', () => Int) maxConnections: number,
    @Arg('features', () => [String], { defaultValue: [] }) features: string[],
  ): Promise<Plan> {
    const plan = await this.repo.insertPlan({
      _id: await this.repo.nextId('plan'),
      name,
      maxUsers,
      maxConnections,
      features,
      createdAt: new Date(),
    });
    return { ...plan, id: plan._id };
  }
}
