// The gateway's warm-up before it reports ready (docs/operations.md "Warm-up"). A fresh Node
// process runs its hot paths in V8's interpreter, opens its gRPC channels and streams on their
// first call, and builds its caches as it goes: measured, a gateway that took traffic at once
// served about half its warmed sends/s for its first seconds (docs/benchmarks.md "Joining under
// load"). So before /readyz says ready, the gateway sends itself sendMessageByTicket requests
// through fastify.inject, the whole route (hooks, parsing, validation, auth, rate limits, the
// messaging stream, the error envelope, the access line), as a principal of no tenant (tenant 0):
// messaging finds no ticket of tenant 0 and refuses each one, so nothing is stored anywhere. A few
// carry an unknown token, which resolves through the tenants service (connected on the way) to 401.
// Bounded by WARMUP_MS and WARMUP_REQUESTS; a failure is logged and the gateway becomes ready anyway.
import { randomBytes } from 'node:crypto';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { Gateway } from './app';
import type { Authenticator, Principal } from './auth';
import type { WarmupConfig } from './config';

/**
 * Whom the warm-up's requests act as: no tenant has id 0, so no tenant's data is ever read or
 * written. Marked `warmup`, so that the routes tell its requests apart without importing this module.
 */
const WARMUP_PRINCIPAL: Principal = { apiId: 'warm-up', tenantId: 0, sessionId: 0, userId: 0, warmup: true } as Principal;

/** Requests in flight at once: as a loaded gateway has them, so that concurrent paths warm too. */
const CONCURRENCY = 8;
/** One request in this many carries an unknown token (the token lookup's path). */
const UNKNOWN_TOKEN_EVERY = 16;

export interface WarmupResult {
  requests: number;
  ms: number;
  /** Answers by status code. */
  statuses: Record<number, number>;
}

/** Runs the warm-up; never throws. The principal's token exists only in this process, only while it runs. */
export async function warmUp(
  app: FastifyInstance,
  auth: Authenticator,
  config: WarmupConfig,
  log: FastifyBaseLogger,
): Promise<WarmupResult> {
  const started = Date.now();
  const result: WarmupResult = { requests: 0, ms: 0, statuses: {} };
  if (config.ms <= 0 || config.requests <= 0) return result;
  const token = randomBytes(32).toString('base64url');
  const unknown = randomBytes(32).toString('base64url');
  auth.allowWarmup(token, WARMUP_PRINCIPAL);
  const until = started + config.ms;
  let sent = 0;
  const worker = async () => {
    while (sent < config.requests && Date.now() < until) {
      const n = sent++;
      const res = await app.inject({
        method: 'POST',
        url: `/v2/api/external/${WARMUP_PRINCIPAL.apiId}/sendMessageByTicket`,
        headers: {
          authorization: `Bearer ${n % UNKNOWN_TOKEN_EVERY === UNKNOWN_TOKEN_EVERY - 1 ? unknown : token}`,
          'content-type': 'application/json',
        },
        payload: JSON.stringify({ ticketId: 1 + (n % 64), body: 'warm-up' }),
      });
      result.statuses[res.statusCode] = (result.statuses[res.statusCode] ?? 0) + 1;
    }
  };
  let timer: NodeJS.Timeout | undefined;
  try {
    // WARMUP_MS bounds it even when a peer does not answer: requests still out then end by their deadlines.
    const bound = new Promise<void>((resolve) => (timer = setTimeout(resolve, config.ms)));
    await Promise.race([Promise.all(Array.from({ length: CONCURRENCY }, worker)), bound]);
  } catch (err) {
    log.warn({ err }, 'warm-up failed; ready without it');
  } finally {
    clearTimeout(timer);
    auth.allowWarmup(undefined);
  }
  result.requests = sent;
  // The loop stops at the bound: no worker starts a request after this.
  sent = config.requests;
  result.ms = Date.now() - started;
  log.info({ requests: result.requests, ms: result.ms, statuses: result.statuses }, 'warm-up done');
  return result;
}

/** The gateway's start after listen: the warm-up, then ready (/readyz 200). */
export async function warmUpThenReady(gateway: Pick<Gateway, 'app' | 'auth' | 'readiness'>, config: WarmupConfig): Promise<WarmupResult> {
  const result = await warmUp(gateway.app, gateway.auth, config, gateway.app.log);
  gateway.readiness.ready = true;
  return result;
}
