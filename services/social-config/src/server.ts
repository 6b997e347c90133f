import { buildSubgraph, type SubgraphTypes, type ServiceSpec } from '@convo/kit';
import { ProfilesRepository } from './db/profiles.repository';
import { ProfilesService } from './domain/profiles.service';
import { socialHandlers } from './grpc/social.handlers';
import { profileReference } from './graphql/profile.reference';
import { ProfileResolver } from './graphql/profile.resolver';

export const subgraphTypes: SubgraphTypes = {
  resolvers: [ProfileResolver],
};

export const socialConfigService: ServiceSpec<'socialConfig', Record<string, never>> = {
  name: 'social-config',
  grpc: 'socialConfig',
  database: 'convo_social',
  ports: { grpc: 50054, graphql: 4004 },
  config: () => ({}),
  async create({ db }) {
    const repo = new ProfilesRepository(db);
    await repo.init();
    const profiles = new ProfilesService(repo);
    const resolver = new ProfileResolver(profiles);
    const { schema } = await buildSubgraph({
      ...subgraphTypes,
      container: { get: () => resolver },
      references: { ChannelProfile: profileReference(repo) },
    });
    return { handlers: socialHandlers(profiles), schema };
  },
};
