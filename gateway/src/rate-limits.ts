import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import Redis from 'ioredis';
import type { Limit, RateLimitConfig } from './config';
import { envelope } from './errors';

/**
 * Rate limits (CONVENTIONS "Input bounds"), counted with @fastify/rate-limit: in Redis when
 * `REDIS_URL` is set, so that every gateway replica shares the counts, in memory otherwise.
 *
 * A request is charged to every limit that applies (its integration and its tenant; a web-chat
 * request to its client address and its channel) and refused 429 ERR_RATE_LIMITED when one of them
 * is spent. Answers carry `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset` of the
 * tightest limit, and a 429 `Retry-After`. When Redis fails the request is let through (the limits
 * protect the gateway from one client; they must not take it down with Redis).
 */

interface Outcome {
  isAllowed: boolean;
  isExceeded: boolean;
  max: number;
  remaining: number;
  ttlInSeconds: number;
}

type Check = (req: FastifyRequest) => Promise<Outcome>;

export interface RateLimits {
  config: RateLimitConfig;
  /**
   * Charges the request to each limit, keyed by what it counts (`api:<id>`, `wv-ip:<address>` …).
   * False when one is spent: the 429 has then been sent.
   */
  charge(req: FastifyRequest, reply: FastifyReply, keys: [Limit, string][]): Promise<boolean>;
}

declare module 'fastify' {
  interface FastifyRequest {
    rateLimitKey?: string;
  }
}

/** Registers the store (Redis or memory) and answers the limits' charger. */
export async function installRateLimits(app: FastifyInstance, config: RateLimitConfig): Promise<RateLimits> {
  const redis = config.redisUrl
    ? new Redis(config.redisUrl, {
        connectTimeout: 2_000,
        commandTimeout: 500,
        maxRetriesPerRequest: 1,
        enableOfflineQueue: false,
        lazyConnect: true,
      })
    : undefined;
  if (redis) {
    redis.on('error', (err) => app.log.warn({ err: err.message }, 'rate-limit store unavailable'));
    app.addHook('onClose', async () => redis.disconnect());
    // Commands fail at once while Redis is away (no offline queue): wait for it once at start.
    await redis.connect().catch((err: Error) => app.log.warn({ err: err.message }, 'rate-limit store unavailable at start'));
  }
  await app.register(rateLimit, {
    global: false,
    ...(redis ? { redis, nameSpace: config.redisPrefix } : { cache: 50_000 }),
    skipOnError: true,
    keyGenerator: (req: FastifyRequest) => req.rateLimitKey ?? req.ip,
  });
  const checks = new Map<string, Check>();
  const checkOf = (limit: Limit) => {
    const id = `${limit.max}/${limit.windowMs}`;
    let check = checks.get(id);
    if (!check) {
      check = app.createRateLimit({ max: limit.max, timeWindow: limit.windowMs }) as Check;
      checks.set(id, check);
    }
    return check;
  };

  const charge: RateLimits['charge'] = async (req, reply, keys) => {
    let tightest: Outcome | undefined;
    for (const [limit, key] of keys) {
      if (limit.max <= 0) continue;
      req.rateLimitKey = key;
      const outcome = await checkOf(limit)(req);
      if (outcome.isAllowed) continue; // an allow-listed key
      if (!tightest || outcome.remaining < tightest.remaining || outcome.isExceeded) tightest = outcome;
      if (outcome.isExceeded) break;
    }
    if (!tightest) return true;
    reply.header('ratelimit-limit', tightest.max);
    reply.header('ratelimit-remaining', Math.max(0, tightest.remaining));
    reply.header('ratelimit-reset', tightest.ttlInSeconds);
    if (!tightest.isExceeded) return true;
    reply.header('retry-after', Math.max(1, tightest.ttlInSeconds));
    await reply.code(429).send(envelope('ERR_RATE_LIMITED', `Too many requests; retry in ${Math.max(1, tightest.ttlInSeconds)} s`));
    return false;
  };
  return { config, charge };
}
