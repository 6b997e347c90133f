import { parseAllowList, type AllowList, type EnvReader } from '@convo/kit';
import { buildSubgraph, type SubgraphTypes } from '@convo/kit/graphql/subgraph';
import { type ServiceSpec } from '@convo/kit/service';
import type { Connection } from 'mongoose';
import { ApisRepository } from './db/apis.repository';
import { ChannelsRepository } from './db/channels.repository';
import { registerModels } from './db/models';
import { TenantsRepository } from './db/tenants.repository';
import { PAYMENT_GATEWAYS } from './domain/catalog';
import { ChannelsService } from './domain/channels.service';
import { IntegrationsService } from './domain/integrations.service';
import { TargetUrls } from './domain/target-urls';
import { PaymentsRepository } from './db/payments.repository';
import { DEFAULT_API_URLS, GatewayApis, type GatewayApiConfig } from './domain/payments/gateway-apis';
import { PaymentsService, type WebhookSecrets } from './domain/payments/payments.service';
import { PlansService } from './domain/plans.service';
import { DEFAULT_FEED_OPTIONS, RevocationFeed, type RevocationFeedOptions } from './domain/revocations';
import { TenantsService } from './domain/tenants.service';
import { tenantsHandlers } from './grpc/tenants.handlers';
import { channelReference } from './graphql/channel.reference';
import { Channel } from './graphql/channel.type';
import { tenantReference } from './graphql/tenant.reference';
import { ChannelAdminResolver } from './graphql/channel-admin.resolver';
import { TenantDashboardResolver } from './graphql/tenant-dashboard.resolver';
import { TenantResolver } from './graphql/tenant.resolver';
import { PaymentsResolver } from './graphql/payments.resolver';
import { PaymentRecords } from './domain/payments/payment-records';
import { Tenant } from './graphql/tenant.type';

export interface TenantsConfig {
  /** `SEED_DEV_PLANS=true`: create the development plans when the installation has none. */
  seedDevPlans: boolean;
  /** `PAYMENT_WEBHOOK_SECRET_GATEWAY_A` … `_D`; a gateway without one answers 503. */
  paymentWebhookSecrets: WebhookSecrets;
  /** PAYMENT_API_URL_GATEWAY_<X>, PAYMENT_API_TOKEN_GATEWAY_C, PAYMENT_CLIENT_ID/SECRET_GATEWAY_D, PAYMENT_API_TIMEOUT_MS, PAYMENT_API_CONCURRENCY. */
  paymentApis: GatewayApiConfig;
  /** PAYMENT_RECONCILE_RATE_PER_SECOND, PAYMENT_RECONCILE_INTERVAL_MS, PAYMENT_RECONCILE_POLL_MS (the reconciler process). */
  reconcile: { ratePerSecond: number; intervalMs: number; pollMs: number; suspendAfterDays: number };
  revocationFeed: RevocationFeedOptions;
  /** `WEBHOOK_ALLOWED_PRIVATE`: private webhook targets the operator allows (as the relay does). */
  webhookAllowedPrivate: AllowList;
}

export function readTenantsConfig(env: EnvReader): TenantsConfig {
  return {
    seedDevPlans: env.str('SEED_DEV_PLANS', '') === 'true',
    paymentWebhookSecrets: Object.fromEntries(
      PAYMENT_GATEWAYS.map((gw) => [gw, env.str(`PAYMENT_WEBHOOK_SECRET_${gw.toUpperCase()}`, '')]),
    ),
    paymentApis: {
      urls: Object.fromEntries(
        PAYMENT_GATEWAYS.map((gw) => [gw, env.str(`PAYMENT_API_URL_${gw.toUpperCase()}`, DEFAULT_API_URLS[gw])]),
      ) as GatewayApiConfig['urls'],
      mercadoPagoToken: env.str('PAYMENT_API_TOKEN_GATEWAY_C', ''),
      efiClientId: env.str('PAYMENT_CLIENT_ID_GATEWAY_D', ''),
      efiClientSecret: env.str('PAYMENT_CLIENT_SECRET_GATEWAY_D', ''),
      // Below the gateway's RPC deadline (RPC_DEADLINE_MS, 5 s): a slow gateway API answers 503, which the gateway retries.
      timeoutMs: env.int('PAYMENT_API_TIMEOUT_MS', 3_000),
      maxConcurrent: env.int('PAYMENT_API_CONCURRENCY', 16),
    },
    reconcile: {
      ratePerSecond: Number(env.str('PAYMENT_RECONCILE_RATE_PER_SECOND', '5')) || 5,
      intervalMs: env.int('PAYMENT_RECONCILE_INTERVAL_MS', 86_400_000),
      pollMs: env.int('PAYMENT_RECONCILE_POLL_MS', 2_000),
      // Unset: never suspend.
      suspendAfterDays: Number(env.str('PAYMENT_SUSPEND_AFTER_DAYS', '0')) || 0,
    },
    revocationFeed: DEFAULT_FEED_OPTIONS,
    webhookAllowedPrivate: parseAllowList(env.str('WEBHOOK_ALLOWED_PRIVATE', '')),
  };
}

export const subgraphTypes: SubgraphTypes = {
  resolvers: [TenantResolver, TenantDashboardResolver, ChannelAdminResolver, PaymentsResolver],
  orphanedTypes: [Channel, Tenant],
};

export function createRepositories(db: Connection) {
  const models = registerModels(db);
  return {
    models,
    tenants: new TenantsRepository(db, models),
    channels: new ChannelsRepository(models),
    apis: new ApisRepository(models),
    payments: new PaymentsRepository(models),
  };
}

export const tenantsService: ServiceSpec<'tenants', TenantsConfig> = {
  name: 'tenants',
  grpc: 'tenants',
  database: 'convo_tenants',
  ports: { grpc: 50055, graphql: 4005 },
  config: readTenantsConfig,
  async create({ db, log, config }) {
    const repos = createRepositories(db);
    await Promise.all(Object.values(repos.models).map((m) => m.createIndexes()));
    const plans = new PlansService(repos.tenants);
    if (config.seedDevPlans) {
      const seeded = await plans.seedDevPlans();
      if (seeded.length) log.info({ plans: seeded.map((p) => p.name) }, 'seeded development plans');
    }
    const revocations = new RevocationFeed(repos.apis, log, config.revocationFeed);
    await revocations.start();

    // One instance of each domain service for gRPC and GraphQL alike: the same rules (webhook URL
    // checks, a tenant's integrations revoked when it is set inactive) whichever API changes a thing.
    const targets = new TargetUrls(config.webhookAllowedPrivate);
    const integrations = new IntegrationsService(repos.tenants, repos.channels, repos.apis, revocations, targets);
    const tenants = new TenantsService(repos.tenants, (tenantId) => integrations.revokeTenant(tenantId));
    const channels = new ChannelsService(repos.tenants, repos.channels, repos.apis, targets, (id, tenantId) =>
      integrations.channelChanged(id, tenantId),
    );
    const payments = new PaymentsService(repos.tenants, repos.payments, config.paymentWebhookSecrets, new GatewayApis(config.paymentApis));
    const resolvers = new Map<unknown, unknown>([
      [TenantResolver, new TenantResolver(tenants, channels, plans)],
      [TenantDashboardResolver, new TenantDashboardResolver(tenants, plans, integrations, channels)],
      [ChannelAdminResolver, new ChannelAdminResolver(channels)],
      [PaymentsResolver, new PaymentsResolver(new PaymentRecords(repos.payments))],
    ]);
    const { schema } = await buildSubgraph({
      ...subgraphTypes,
      container: { get: (cls) => resolvers.get(cls) },
      references: { Tenant: tenantReference(tenants), Channel: channelReference(channels) },
    });
    const handlers = tenantsHandlers({
      tenants,
      channels,
      integrations,
      payments,
      revocations,
    });
    return { handlers, schema, close: async () => revocations.stop() };
  },
};
