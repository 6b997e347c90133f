import { EnvReader } from '@convo/kit';
import { randomBytes } from 'node:crypto';

// The settings' shapes are declared here, beside the code that reads them, and this module imports
// nothing else of the gateway: every other module may depend on it without closing a circle.

export interface GatewayConfig {
  port: number;
  host: string;
  superAdminToken: string;
  /** Presented to the subgraphs (SUBGRAPH_TOKEN, required: a secret of its own). */
  subgraphToken: string;
  peers: { tickets: string; messaging: string; channelEngines: string; socialConfig: string; tenants: string };
  subgraphs: Record<SubgraphName, string>;
  /** How long a resolved integration token is trusted before it is asked again. */
  tokenCacheMs: number;
  /** Deadline of an ordinary gRPC call; sends get the provider timeout on top. */
  rpcDeadlineMs: number;
  sendDeadlineMs: number;
  bodyLimitBytes: number;
  mediaBodyLimitBytes: number;
  /** Request body bytes held at once, all requests together (body-budget.ts); 0 turns it off. */
  bodyBudgetBytes: number;
  mediaMaxBytes: number;
  /** Verifies the media links messaging signs (the same secret on both sides). */
  mediaUrlSecret: string;
  /** Meta webhooks: the verification handshake's token and the app secret that signs deliveries. */
  metaVerifyToken: string;
  metaAppSecret: string;
  rateLimits: RateLimitConfig;
  /** GraphQL dashboard API and console: sessions, limits, introspection (docs/api/graphql.md). */
  dashboard: DashboardConfig;
  /** Shutdown is bounded: whatever still holds the process after this long is cut off (SHUTDOWN_GRACE_MS). */
  shutdownGraceMs: number;
  /** The warm-up before ready (warmup.ts): WARMUP_MS (0: none) and WARMUP_REQUESTS. */
  warmup: WarmupConfig;
}

export interface DashboardConfig {
  /**
   * Signs tenant administrators' sessions (`SESSION_SECRET`, a secret of its own; required in
   * production; in development an unset one is random per process, so npm start sets it).
   */
  sessionSecret: string;
  sessionTtlSeconds: number;
  /** How long a replica trusts a session's status (tenant active, user there, same password) before asking again. */
  sessionCheckMs: number;
  /** `GRAPHQL_INTROSPECTION=true|false`; default: on, off with NODE_ENV=production. */
  introspection: boolean;
  maxDepth: number;
  maxComplexity: number;
}

/** A limit of rate-limits.ts: at most `max` requests a window. */
export interface Limit {
  max: number;
  windowMs: number;
}

export interface RateLimitConfig {
  redisUrl: string;
  /** Prefix of the counters' Redis keys (one per installation sharing a Redis). */
  redisPrefix: string;
  perToken: Limit;
  perTenant: Limit;
  /** Anonymous web-chat visitor creation, per client address and per channel. */
  visitorsPerAddress: Limit;
  visitorsPerChannel: Limit;
  /** Web-chat message reads (long polls), per client address and per channel. */
  pollsPerAddress: Limit;
  pollsPerChannel: Limit;
  /** Long polls open at once on one gateway; more wait no longer than a short poll. */
  maxOpenPolls: number;
  /** Tenant administrators' sign-in (`POST /graphql/login`), per client address and per e-mail. */
  loginPerAddress: Limit;
  loginPerEmail: Limit;
}

export interface WarmupConfig {
  /** How long the warm-up may take, at most (WARMUP_MS; 0 turns it off). */
  ms: number;
  /** How many requests it sends, at most (WARMUP_REQUESTS). */
  requests: number;
}

export const SUBGRAPHS = ['tickets', 'messaging', 'engines', 'social', 'tenants'] as const;
export type SubgraphName = (typeof SUBGRAPHS)[number];

export function readGatewayConfig(env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  const r = new EnvReader(env);
  const config: GatewayConfig = {
    port: r.int('PORT', 8080),
    host: r.str('HOST', '0.0.0.0'),
    shutdownGraceMs: r.int('SHUTDOWN_GRACE_MS', 10_000),
    warmup: { ms: r.int('WARMUP_MS', 12_000), requests: r.int('WARMUP_REQUESTS', 2_000) },
    superAdminToken: r.str('SUPER_ADMIN_TOKEN'),
    subgraphToken: r.secret('SUBGRAPH_TOKEN'),
    peers: {
      tickets: r.str('TICKETS_GRPC_ADDR', '127.0.0.1:50051'),
      messaging: r.str('MESSAGING_GRPC_ADDR', '127.0.0.1:50052'),
      channelEngines: r.str('CHANNEL_ENGINES_GRPC_ADDR', '127.0.0.1:50053'),
      socialConfig: r.str('SOCIAL_CONFIG_GRPC_ADDR', '127.0.0.1:50054'),
      tenants: r.str('TENANTS_GRPC_ADDR', '127.0.0.1:50055'),
    },
    subgraphs: {
      tickets: r.str('TICKETS_GRAPHQL_URL', 'http://127.0.0.1:4001/graphql'),
      messaging: r.str('MESSAGING_GRAPHQL_URL', 'http://127.0.0.1:4002/graphql'),
      engines: r.str('CHANNEL_ENGINES_GRAPHQL_URL', 'http://127.0.0.1:4003/graphql'),
      social: r.str('SOCIAL_CONFIG_GRAPHQL_URL', 'http://127.0.0.1:4004/graphql'),
      tenants: r.str('TENANTS_GRAPHQL_URL', 'http://127.0.0.1:4005/graphql'),
    },
    tokenCacheMs: r.int('TOKEN_CACHE_MS', 5_000),
    rpcDeadlineMs: r.int('RPC_DEADLINE_MS', 5_000),
    sendDeadlineMs: r.int('PROVIDER_TIMEOUT_MS', 10_000) + 5_000,
    // JSON bodies (CONVENTIONS "Input bounds"); only media routes take more.
    bodyLimitBytes: r.int('BODY_LIMIT_BYTES', 1024 * 1024),
    // A 16 MiB file sent as base64 is a third larger, plus the other fields.
    mediaBodyLimitBytes: r.int('MEDIA_BODY_LIMIT_BYTES', 24 * 1024 * 1024),
    mediaMaxBytes: r.int('MEDIA_MAX_BYTES', 16 * 1024 * 1024),
    // About three media bodies at their limit: with what one admitted byte costs, the gateway stays
    // within a few hundred MB whatever the concurrency (docs/operations.md "Limits").
    bodyBudgetBytes: r.int('BODY_BUDGET_BYTES', 64 * 1024 * 1024),
    mediaUrlSecret: r.str('MEDIA_URL_SECRET', ''),
    metaVerifyToken: r.str('META_VERIFY_TOKEN', ''),
    metaAppSecret: r.str('META_APP_SECRET', ''),
    rateLimits: readRateLimits(r),
    dashboard: {
      sessionSecret: r.secret('SESSION_SECRET', () => randomBytes(32).toString('base64url')),
      sessionTtlSeconds: r.int('SESSION_TTL_SECONDS', 15 * 60),
      sessionCheckMs: r.int('SESSION_CHECK_MS', 2_000),
      introspection: r.str('GRAPHQL_INTROSPECTION', env.NODE_ENV === 'production' ? 'false' : 'true') === 'true',
      maxDepth: r.int('GRAPHQL_MAX_DEPTH', 10),
      maxComplexity: r.int('GRAPHQL_MAX_COMPLEXITY', 5_000),
    },
  };
  // Each its own: one leaked (a subgraph's token, a session key) opens nothing else.
  r.independent({
    SUPER_ADMIN_TOKEN: config.superAdminToken,
    SESSION_SECRET: config.dashboard.sessionSecret,
    SUBGRAPH_TOKEN: config.subgraphToken,
    MESH_SECRET: env.MESH_SECRET ?? '',
  });
  r.done();
  if (config.superAdminToken.length < 16) throw new Error('SUPER_ADMIN_TOKEN must have at least 16 characters');
  config.mediaUrlSecret ||= config.superAdminToken;
  return config;
}

/** docs/operations.md "Limits": every limit is set by env; 0 turns one off. */
function readRateLimits(r: EnvReader): RateLimitConfig {
  const windowMs = r.int('RATE_LIMIT_WINDOW_MS', 10_000);
  const minute = 60_000;
  return {
    redisUrl: r.str('REDIS_URL', ''),
    redisPrefix: r.str('RATE_LIMIT_REDIS_PREFIX', 'convo-rl-'),
    perToken: { max: r.int('RATE_LIMIT_PER_TOKEN', 600), windowMs },
    perTenant: { max: r.int('RATE_LIMIT_PER_TENANT', 1_200), windowMs },
    visitorsPerAddress: { max: r.int('WEBCHAT_VISITORS_PER_ADDRESS', 30), windowMs: minute },
    visitorsPerChannel: { max: r.int('WEBCHAT_VISITORS_PER_CHANNEL', 600), windowMs: minute },
    pollsPerAddress: { max: r.int('WEBCHAT_POLLS_PER_ADDRESS', 180), windowMs: minute },
    pollsPerChannel: { max: r.int('WEBCHAT_POLLS_PER_CHANNEL', 6_000), windowMs: minute },
    maxOpenPolls: r.int('WEBCHAT_MAX_OPEN_POLLS', 200),
    // Sign-in: enough for people mistyping, far too few to guess passwords or probe e-mails.
    loginPerAddress: { max: r.int('LOGIN_RATE_LIMIT_PER_ADDRESS', 20), windowMs: minute },
    loginPerEmail: { max: r.int('LOGIN_RATE_LIMIT_PER_EMAIL', 10), windowMs: 15 * minute },
  };
}
