import { type EnvReader } from '@convo/kit';
import { buildSubgraph, type SubgraphTypes } from '@convo/kit/graphql/subgraph';
import { DEFAULT_META_GRAPH_URL } from '@convo/kit/meta-graph';
import { type ServiceSpec } from '@convo/kit/service';
import { DeliveriesRepository } from './db/deliveries.repository';
import { TemplateChangesRepository } from './db/template-changes.repository';
import { EnginesService } from './domain/engines.service';
import type { DriverSettings } from './drivers/driver';
import { createDrivers } from './drivers';
import { TemplateCatalogs } from './drivers/waba-templates';
import { enginesHandlers } from './grpc/engines.handlers';
import { deliveryReference } from './graphql/delivery.reference';
import { DeliveryResolver } from './graphql/delivery.resolver';

export const subgraphTypes: SubgraphTypes = {
  resolvers: [DeliveryResolver],
};

export interface EnginesConfig {
  providerTimeoutMs: number;
  engineUrls: Record<string, string>;
  defaultEngineUrl: string;
  /** ENGINE_TOKEN_<KIND> by kind, and ENGINE_TOKEN: an engine server's installation-wide key. */
  engineTokens: Record<string, string>;
  defaultEngineToken: string;
  metaGraphUrl: string;
  smtpUrl: string;
  /** TEMPLATE_CACHE_MS: a waba channel's template catalog is read from Meta at most this often. */
  templateCacheMs: number;
}

export function readEnginesConfig(env: EnvReader): EnginesConfig {
  const engineUrls: Record<string, string> = {};
  const engineTokens: Record<string, string> = {};
  for (const kind of ['whatsapp', 'engine_a', 'engine_b', 'engine_c', 'engine_d', 'engine_e', 'engine_f', 'engine_g', 'engine_h']) {
    engineUrls[kind] = env.str(`ENGINE_URL_${kind.toUpperCase()}`, '');
    engineTokens[kind] = env.str(`ENGINE_TOKEN_${kind.toUpperCase()}`, '');
  }
  return {
    providerTimeoutMs: env.int('PROVIDER_TIMEOUT_MS', 10_000),
    engineUrls,
    defaultEngineUrl: env.str('ENGINE_URL', ''),
    engineTokens,
    defaultEngineToken: env.str('ENGINE_TOKEN', ''),
    metaGraphUrl: env.str('META_GRAPH_URL', DEFAULT_META_GRAPH_URL),
    smtpUrl: env.str('SMTP_URL', ''),
    templateCacheMs: env.int('TEMPLATE_CACHE_MS', 60_000),
  };
}

export const channelEnginesService: ServiceSpec<'channelEngines', EnginesConfig> = {
  name: 'channel-engines',
  grpc: 'channelEngines',
  database: 'convo_engines',
  ports: { grpc: 50053, graphql: 4003 },
  config: readEnginesConfig,
  async create({ db, log, config }) {
    const settings: DriverSettings = {
      timeoutMs: config.providerTimeoutMs,
      engineUrl: (kind) => config.engineUrls[kind] || config.defaultEngineUrl,
      engineToken: (kind) => config.engineTokens[kind] || config.defaultEngineToken,
      metaGraphUrl: config.metaGraphUrl.replace(/\/+$/, ''),
      smtpUrl: config.smtpUrl,
    };
    const repo = new DeliveriesRepository(db, (err, dropped) =>
      log.error({ err, dropped }, 'provider call records not written; kept for the next try'),
    );
    await repo.init();
    const templates = new TemplateCatalogs(settings, config.templateCacheMs, new TemplateChangesRepository(db));
    const engines = new EnginesService(createDrivers(settings, db), repo, log, templates);
    const resolver = new DeliveryResolver(engines);
    const { schema } = await buildSubgraph({
      ...subgraphTypes,
      container: { get: () => resolver },
      references: { Delivery: deliveryReference(engines) },
    });
    return { handlers: enginesHandlers(engines), schema, close: () => engines.close() };
  },
};
