import { createClient, type EnvReader } from '@convo/kit';
import { buildSubgraph, type SubgraphTypes } from '@convo/kit/graphql/subgraph';
import { DEFAULT_META_GRAPH_URL } from '@convo/kit/meta-graph';
import { type ServiceSpec } from '@convo/kit/service';
import { ProfilesRepository } from './db/profiles.repository';
import { ConfigureService } from './domain/configure.service';
import { ProfilesService } from './domain/profiles.service';
import { socialHandlers } from './grpc/social.handlers';
import { profileReference } from './graphql/profile.reference';
import { ProfileResolver } from './graphql/profile.resolver';
import { GraphClient } from './meta/graph.client';

export const subgraphTypes: SubgraphTypes = {
  resolvers: [ProfileResolver],
};

export interface SocialConfigSettings {
  tenantsAddr: string;
  /** Base of Meta's Graph API: the Messenger Profile and Personas APIs. */
  graphUrl: string;
  providerTimeoutMs: number;
}

export const readSocialConfig = (env: EnvReader): SocialConfigSettings => ({
  tenantsAddr: env.str('TENANTS_GRPC_ADDR', '127.0.0.1:50055'),
  graphUrl: env.str('META_GRAPH_URL', DEFAULT_META_GRAPH_URL),
  providerTimeoutMs: env.int('PROVIDER_TIMEOUT_MS', 10_000),
});

export const socialConfigService: ServiceSpec<'socialConfig', SocialConfigSettings> = {
  name: 'social-config',
  grpc: 'socialConfig',
  database: 'convo_social',
  ports: { grpc: 50054, graphql: 4004 },
  config: readSocialConfig,
  async create({ db, config }) {
    const repo = new ProfilesRepository(db);
    await repo.init();
    const tenants = createClient('tenants', config.tenantsAddr);
    const profiles = new ProfilesService(repo, tenants);
    const configure = new ConfigureService(repo, new GraphClient(config.graphUrl, config.providerTimeoutMs), tenants);
    const resolver = new ProfileResolver(profiles);
    const { schema } = await buildSubgraph({
      ...subgraphTypes,
      container: { get: () => resolver },
      references: { ChannelProfile: profileReference(profiles) },
    });
    return { handlers: socialHandlers(profiles, configure), schema };
  },
};
