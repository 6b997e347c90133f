import { buildSubgraph, type SubgraphTypes, type ServiceSpec } from '@convo/kit';
import { TenantsRepository } from './db/tenants.repository';
import { TenantsService } from './domain/tenants.service';
import { tenantsHandlers } from './grpc/tenants.handlers';
import { channelReference } from './graphql/channel.reference';
import { Channel } from './graphql/channel.type';
import { tenantReference } from './graphql/tenant.reference';
import { TenantResolver } from './graphql/tenant.resolver';
import { Tenant } from './graphql/tenant.type';

export const subgraphTypes: SubgraphTypes = {
  resolvers: [TenantResolver],
  orphanedTypes: [Channel, Tenant],
};

export async function buildTenantsSubgraph(repo: TenantsRepository) {
  const resolver = new TenantResolver(repo);
  return buildSubgraph({
    ...subgraphTypes,
    container: { get: () => resolver },
    references: { Tenant: tenantReference(repo), Channel: channelReference(repo) },
  });
}

export const tenantsService: ServiceSpec<'tenants', Record<string, never>> = {
  name: 'tenants',
  grpc: 'tenants',
  database: 'convo_tenants',
  ports: { grpc: 50055, graphql: 4005 },
  config: () => ({}),
  async create({ db }) {
    const repo = new TenantsRepository(db);
    await repo.init();
    const { schema } = await buildTenantsSubgraph(repo);
    return { handlers: tenantsHandlers(new TenantsService(repo)), schema };
  },
};
