import { offsetCursor, readOffsetCursor, type proto } from '@convo/kit';
import { requestLoader } from '@convo/kit/graphql/loaders';
import { Arg, Ctx, FieldResolver, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { ChannelsService } from '../domain/channels.service';
import type { IntegrationsService } from '../domain/integrations.service';
import type { PlansService } from '../domain/plans.service';
import type { TenantsService } from '../domain/tenants.service';
import { Channel } from './channel.type';
import { TenantStatusEnum } from './enums';
import { toGraphTenant, toPlan } from './tenant.resolver';
import { Plan, Tenant } from './tenant.type';
import { CreatedIntegration, Integration, TenantConnection, TenantUsage, TenantUser } from './tenant-dashboard.type';
import { TenantScoped } from '@convo/kit/graphql/subgraph';

const MAX_PAGE = 100;

/** An integration as the domain answers it (the gRPC record, without its token). */
export const toIntegration = (a: proto.tenants.ApiIntegration): Integration => ({
  apiId: a.apiId ?? '',
  name: a.name ?? '',
  channelId: a.sessionId ?? 0,
  userId: a.userId ?? 0,
  urlServiceStatus: a.urlServiceStatus ?? '',
  urlMessageStatus: a.urlMessageStatus ?? '',
  createdAt: a.createdAt ?? '',
});

/** The dashboard's view of tenants: paging, usage against limits, users, integrations, and their admin actions. */
@Resolver(() => Tenant)
export class TenantDashboardResolver {
  constructor(
    private readonly tenants: TenantsService,
    private readonly plans: PlansService,
    private readonly integrationsService: IntegrationsService,
    private readonly channelsService: ChannelsService,
  ) {}

  @Query(() => TenantConnection, { description: 'Every tenant in id order (platform only).' })
  async tenantConnection(
    @Arg('first', () => Int, { defaultValue: 20 }) first: number,
    @Arg('after', () => String, { nullable: true }) after: string | null,
    @Arg('name', () => String, { nullable: true }) name: string | null,
  ): Promise<TenantConnection> {
    const offset = readOffsetCursor(after);
    const [docs, totalCount] = await Promise.all([
      this.tenants.tenantsFrom(offset, first, MAX_PAGE, name ?? undefined),
      this.tenants.countTenants(name ?? undefined),
    ]);
    const next = offset + docs.length;
    return {
      nodes: docs.map(toGraphTenant),
      totalCount,
      pageInfo: { hasNextPage: next < totalCount, endCursor: docs.length ? offsetCursor(next) : (after ?? null) },
    };
  }

  // Each field below is read once per request for every tenant of the page (a DataLoader per
  // field, keyed by the tenant, or the plan's id): one query for the page, not one per row.

  @FieldResolver(() => Plan, { nullable: true })
  async plan(@Root() tenant: Tenant, @Ctx() context: unknown): Promise<Plan | null> {
    if (tenant.planId === undefined || tenant.planId === null) return null;
    const p = await requestLoader(context, 'Tenant.plan', (ids: readonly number[]) => this.plans.findPlans(ids)).load(tenant.planId);
    return p ? toPlan(p) : null;
  }

  @FieldResolver(() => [Channel], { description: 'Channels without their provider secrets.' })
  async channels(@Root() tenant: Tenant, @Ctx() context: unknown): Promise<Channel[]> {
    const loader = requestLoader(context, 'Tenant.channels', (ids: readonly number[]) => this.channelsService.listChannelsOf(ids));
    return ((await loader.load(tenant.id)) ?? []) as Channel[];
  }

  @FieldResolver(() => TenantUsage)
  async usage(@Root() tenant: Tenant, @Ctx() context: unknown): Promise<TenantUsage> {
    const loader = requestLoader(context, 'Tenant.usage', (ids: readonly number[]) => this.channelsService.usageOf(ids));
    const { users, connections } = (await loader.load(tenant.id)) ?? { users: 0, connections: 0 };
    return { users, maxUsers: tenant.maxUsers, connections, maxConnections: tenant.maxConnections };
  }

  @FieldResolver(() => [TenantUser], { description: 'The first 100 users by name.' })
  async users(@Root() tenant: Tenant, @Ctx() context: unknown): Promise<TenantUser[]> {
    const loader = requestLoader(context, 'Tenant.users', (ids: readonly number[]) => this.tenants.firstUsersOf(ids, MAX_PAGE));
    return ((await loader.load(tenant.id)) ?? []).map((u) => ({
      id: u.id ?? 0,
      name: u.name ?? '',
      email: u.email ?? '',
      profile: u.profile as TenantUser['profile'],
    }));
  }

  @FieldResolver(() => [Integration], { description: 'API integrations, oldest first (first 100); tokens are never shown.' })
  async integrations(@Root() tenant: Tenant, @Ctx() context: unknown): Promise<Integration[]> {
    const loader = requestLoader(context, 'Tenant.integrations', (ids: readonly number[]) =>
      this.integrationsService.firstApisOf(ids, MAX_PAGE),
    );
    return ((await loader.load(tenant.id)) ?? []).map(toIntegration);
  }

  @Mutation(() => Tenant, { description: "Changes a tenant's status and limits (platform only), as tenantApiUpdateTenant." })
  async updateTenant(
    @Arg('id', () => Int) id: number,
    @Arg('status', () => TenantStatusEnum, { nullable: true }) status: string | null,
    @Arg('maxUsers', () => Int, { nullable: true }) maxUsers: number | null,
    @Arg('maxConnections', () => Int, { nullable: true }) maxConnections: number | null,
  ): Promise<Tenant> {
    const updated = await this.tenants.updateTenantById(id, {
      identity: '',
      status: status ?? undefined,
      maxUsers: maxUsers ?? undefined,
      maxConnections: maxConnections ?? undefined,
      gatewayPairs: [],
    } as never);
    return toGraphTenant(updated);
  }

  @Mutation(() => CreatedIntegration, { description: 'Creates an API integration on a channel of the tenant; its token is answered once.' })
  @TenantScoped('tenantId')
  async createIntegration(
    @Arg('tenantId', () => Int) tenantId: number,
    @Arg('channelId', () => Int) channelId: number,
    @Arg('name') name: string,
    @Arg('userId', () => Int, { nullable: true, description: "Default: the tenant's administrator." }) userId: number | null,
    @Arg('urlServiceStatus', { defaultValue: '' }) urlServiceStatus: string,
    @Arg('urlMessageStatus', { defaultValue: '' }) urlMessageStatus: string,
  ): Promise<CreatedIntegration> {
    const { integration, authToken } = await this.integrationsService.createWithNewToken({
      tenant: tenantId,
      sessionId: channelId,
      name,
      userId,
      urlServiceStatus,
      urlMessageStatus,
    });
    return { integration: toIntegration(integration), authToken };
  }

  @Mutation(() => Boolean, { description: 'Deletes an integration of the tenant; its token stops working at once on every gateway.' })
  @TenantScoped('tenantId')
  async revokeIntegration(@Arg('tenantId', () => Int) tenantId: number, @Arg('apiId') apiId: string): Promise<boolean> {
    await this.integrationsService.revokeApi(tenantId, apiId);
    return true;
  }

  @Mutation(() => String, {
    description: 'Gives the channel a new webhook signing secret, answered here; the previous one still signs for 24 hours.',
  })
  @TenantScoped('tenantId')
  async rotateWebhookSecret(@Arg('tenantId', () => Int) tenantId: number, @Arg('channelId', () => Int) channelId: number): Promise<string> {
    await this.channelsService.getTenantChannel(tenantId, channelId);
    const { whatsapp } = await this.channelsService.updateChannel({ id: channelId, rotateWebhookSecret: true } as never);
    return whatsapp.webhookSecret ?? '';
  }
}
