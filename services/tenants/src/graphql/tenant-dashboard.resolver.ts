import { checkPageSize, notFound, offsetCursor, readOffsetCursor } from '@convo/kit';
import { Arg, FieldResolver, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { ApisRepository } from '../db/apis.repository';
import type { ApiIntegrationDoc } from '../db/models';
import type { TenantsRepository } from '../db/tenants.repository';
import type { ChannelsRepository } from '../db/channels.repository';
import type { ChannelsService } from '../domain/channels.service';
import type { IntegrationsService } from '../domain/integrations.service';
import type { TenantsService } from '../domain/tenants.service';
import { newApiToken } from '../domain/tokens';
import { toChannel, toTenant } from '../domain/records';
import { Channel } from './channel.type';
import { TenantStatusEnum } from './enums';
import { toGraphTenant } from './tenant.resolver';
import { Plan, Tenant } from './tenant.type';
import { CreatedIntegration, Integration, TenantConnection, TenantUsage, TenantUser } from './tenant-dashboard.type';

const MAX_PAGE = 100;

const toIntegration = (a: ApiIntegrationDoc): Integration => ({
  apiId: a._id,
  name: a.name,
  channelId: a.sessionId,
  userId: a.userId,
  urlServiceStatus: a.urlServiceStatus,
  urlMessageStatus: a.urlMessageStatus,
  createdAt: new Date(a.createdAt).toISOString(),
});

/** The dashboard's view of tenants: paging, usage against limits, users, integrations, and their admin actions. */
@Resolver(() => Tenant)
export class TenantDashboardResolver {
  constructor(
    private readonly tenantsRepo: TenantsRepository,
    private readonly channelsRepo: ChannelsRepository,
    private readonly apis: ApisRepository,
    private readonly tenants: TenantsService,
    private readonly integrationsService: IntegrationsService,
    private readonly channelsService: ChannelsService,
  ) {}

  @Query(() => TenantConnection, { description: 'Every tenant in id order (platform only).' })
  async tenantConnection(
    @Arg('first', () => Int, { defaultValue: 20 }) first: number,
    @Arg('after', () => String, { nullable: true }) after: string | null,
    @Arg('name', () => String, { nullable: true }) name: string | null,
  ): Promise<TenantConnection> {
    checkPageSize(first, MAX_PAGE);
    const offset = readOffsetCursor(after);
    const filter = { name: name?.trim() || undefined };
    const [docs, totalCount] = await Promise.all([this.tenantsRepo.pageTenants(filter, offset, first), this.tenantsRepo.countTenants(filter)]);
    const next = offset + docs.length;
    return {
      nodes: docs.map((t) => toGraphTenant(toTenant(t))),
      totalCount,
      pageInfo: { hasNextPage: next < totalCount, endCursor: docs.length ? offsetCursor(next) : after ?? null },
    };
  }

  @FieldResolver(() => Plan, { nullable: true })
  async plan(@Root() tenant: Tenant): Promise<Plan | null> {
    if (tenant.planId === undefined || tenant.planId === null) return null;
    const p = await this.tenantsRepo.findPlan(tenant.planId);
    return p ? { ...p, id: p._id, allowedChannels: p.allowedChannels ?? [] } : null;
  }

  @FieldResolver(() => [Channel], { description: 'Channels without their provider secrets.' })
  async channels(@Root() tenant: Tenant): Promise<Channel[]> {
    return (await this.channelsRepo.listChannels(tenant.id)).map((c) => toChannel(c) as Channel);
  }

  @FieldResolver(() => TenantUsage)
  async usage(@Root() tenant: Tenant): Promise<TenantUsage> {
    const [users, connections] = await Promise.all([this.tenantsRepo.countUsers(tenant.id, ''), this.channelsRepo.countChannels(tenant.id)]);
    return { users, maxUsers: tenant.maxUsers, connections, maxConnections: tenant.maxConnections };
  }

  @FieldResolver(() => [TenantUser], { description: 'The first 100 users by name.' })
  async users(@Root() tenant: Tenant): Promise<TenantUser[]> {
    return (await this.tenantsRepo.pageUsers(tenant.id, '', 0, MAX_PAGE)).map((u) => ({ id: u._id, name: u.name, email: u.email, profile: u.profile }));
  }

  @FieldResolver(() => [Integration], { description: 'API integrations, oldest first (first 100); tokens are never shown.' })
  async integrations(@Root() tenant: Tenant): Promise<Integration[]> {
    return (await this.apis.listTenantApis(tenant.id, MAX_PAGE)).map(toIntegration);
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

  @Mutation(() => CreatedIntegration, { description: "Creates an API integration on a channel of the tenant; its token is answered once." })
  async createIntegration(
    @Arg('tenantId', () => Int) tenantId: number,
    @Arg('channelId', () => Int) channelId: number,
    @Arg('name') name: string,
    @Arg('userId', () => Int, { nullable: true, description: "Default: the tenant's administrator." }) userId: number | null,
    @Arg('urlServiceStatus', { defaultValue: '' }) urlServiceStatus: string,
    @Arg('urlMessageStatus', { defaultValue: '' }) urlMessageStatus: string,
  ): Promise<CreatedIntegration> {
    const owner = userId ?? (await this.tenantsRepo.findTenantAdmin(tenantId))?._id;
    if (owner === undefined) throw notFound('tenant');
    const authToken = newApiToken();
    const api = await this.integrationsService.createApi({ tenant: tenantId, sessionId: channelId, name, userId: owner, urlServiceStatus, urlMessageStatus, authToken });
    const doc = await this.apis.findApi(String(api.apiId));
    return { integration: toIntegration(doc!), authToken };
  }

  @Mutation(() => Boolean, { description: 'Deletes an integration of the tenant; its token stops working at once on every gateway.' })
  async revokeIntegration(@Arg('tenantId', () => Int) tenantId: number, @Arg('apiId') apiId: string): Promise<boolean> {
    const api = await this.apis.findApi(apiId);
    if (!api || api.tenantId !== tenantId) throw notFound('api');
    await this.integrationsService.deleteApi({ apiId, tenant: tenantId, sessionId: api.sessionId, userId: api.userId });
    return true;
  }

  @Mutation(() => String, {
    description: "Gives the channel a new webhook signing secret, answered here; the previous one still signs for 24 hours.",
  })
  async rotateWebhookSecret(@Arg('tenantId', () => Int) tenantId: number, @Arg('channelId', () => Int) channelId: number): Promise<string> {
    if (!(await this.channelsRepo.findChannel(tenantId, channelId))) throw notFound('channel');
    const { whatsapp } = await this.channelsService.updateChannel({ id: channelId, rotateWebhookSecret: true } as never);
    return whatsapp.webhookSecret ?? '';
  }
}
