import type { EnvReader } from '@convo/kit';
import type { MediaSettings } from './domain/media.service';

// The messaging settings, apart from the service spec: the dispatcher reads them too, and the spec
// would load its GraphQL schema, Apollo and Fastify into a worker that serves neither.
export interface MessagingConfig {
  ticketsAddr: string;
  tenantsAddr: string;
  enginesAddr: string;
  providerDeadlineMs: number;
  channelCacheMs: number;
  media: MediaSettings;
}

export const readMessagingConfig = (env: EnvReader): MessagingConfig => ({
  ticketsAddr: env.str('TICKETS_GRPC_ADDR', '127.0.0.1:50051'),
  tenantsAddr: env.str('TENANTS_GRPC_ADDR', '127.0.0.1:50055'),
  enginesAddr: env.str('CHANNEL_ENGINES_GRPC_ADDR', '127.0.0.1:50053'),
  // Above the engines' own provider timeout, so that their clear error arrives first.
  providerDeadlineMs: env.int('PROVIDER_TIMEOUT_MS', 10_000) + 2_000,
  channelCacheMs: env.int('CHANNEL_CACHE_MS', 5_000),
  media: {
    maxBytes: env.int('MEDIA_MAX_BYTES', 16 * 1024 * 1024),
    // Where providers fetch stored media (the gateway's /media links). Loopback is right for npm start
    // only: in production (NODE_ENV=production, as in the images) a loopback, unset or placeholder
    // (.invalid) value refuses to start, since every media send would hand providers a dead link.
    publicBaseUrl: env.publicUrl('PUBLIC_BASE_URL', 'http://127.0.0.1:8080'),
    // Signed with the platform secret unless a dedicated one is set; the gateway verifies with the same.
    linkSecret: env.str('MEDIA_URL_SECRET', '') || env.str('SUPER_ADMIN_TOKEN', ''),
    linkTtlSeconds: env.int('MEDIA_LINK_TTL_SECONDS', 24 * 60 * 60),
    fetchConnectTimeoutMs: env.int('MEDIA_FETCH_CONNECT_TIMEOUT_MS', 5_000),
    fetchTotalTimeoutMs: env.int('MEDIA_FETCH_TIMEOUT_MS', 30_000),
  },
});
