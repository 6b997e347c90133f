import Fastify, { type FastifyInstance } from 'fastify';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { installErrorHandler } from '../src/errors';
import type { RateLimitConfig } from '../src/config';
import { installRateLimits } from '../src/rate-limits';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

const config = (over: Partial<RateLimitConfig> = {}): RateLimitConfig => ({
  redisUrl: '',
  redisPrefix: `test-rl-${randomUUID()}-`,
  perToken: { max: 3, windowMs: 60_000 },
  perTenant: { max: 5, windowMs: 60_000 },
  visitorsPerAddress: { max: 0, windowMs: 60_000 },
  visitorsPerChannel: { max: 0, windowMs: 60_000 },
  pollsPerAddress: { max: 0, windowMs: 60_000 },
  pollsPerChannel: { max: 0, windowMs: 60_000 },
  maxOpenPolls: 0,
  loginPerAddress: { max: 0, windowMs: 60_000 },
  loginPerEmail: { max: 0, windowMs: 60_000 },
  ...over,
});

/** A gateway-shaped app: `/t/:token/:tenant` is charged to its token and its tenant. */
async function appWith(cfg: RateLimitConfig): Promise<FastifyInstance> {
  const app = Fastify();
  installErrorHandler(app);
  const limits = await installRateLimits(app, cfg);
  app.get<{ Params: { token: string; tenant: string } }>('/t/:token/:tenant', async (req, reply) => {
    const { token, tenant } = req.params;
    if (
      !(await limits.charge(req, reply, [
        [cfg.perToken, `api:${token}`],
        [cfg.perTenant, `tenant:${tenant}`],
      ]))
    )
      return reply;
    return { success: true };
  });
  await app.ready();
  return app;
}

describe.each([
  ['memory', ''],
  ['redis', REDIS_URL],
])('rate limits (%s store)', (_name, redisUrl) => {
  it('answers 429 ERR_RATE_LIMITED with Retry-After and RateLimit-* per token, then per tenant', async () => {
    const app = await appWith(config({ redisUrl }));
    const get = (token: string, tenant: string) => app.inject({ method: 'GET', url: `/t/${token}/${tenant}` });
    try {
      const first = await get('a', '1');
      expect(first.statusCode).toBe(200);
      expect(first.headers['ratelimit-limit']).toBe('3');
      expect(first.headers['ratelimit-remaining']).toBe('2');
      expect(Number(first.headers['ratelimit-reset'])).toBeGreaterThan(0);
      await get('a', '1');
      await get('a', '1');
      const refused = await get('a', '1');
      expect(refused.statusCode).toBe(429);
      expect(refused.json()).toMatchObject({ success: false, error: 'ERR_RATE_LIMITED' });
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(refused.headers['ratelimit-remaining']).toBe('0');
      // Another token of the same tenant: its own count, but the tenant's (3 so far: a refused
      // request is not charged further) is spent after 5.
      expect((await get('b', '1')).statusCode).toBe(200);
      expect((await get('b', '1')).statusCode).toBe(200);
      expect((await get('b', '1')).statusCode).toBe(429);
      // Another tenant is untouched.
      expect((await get('c', '2')).statusCode).toBe(200);
    } finally {
      await app.close();
    }
  });
});

/**
 * A gateway replica in a process of its own, as Kubernetes runs them: the built limiter (dist/,
 * built before the tests run) behind the same route as appWith, its URL printed once it listens.
 * Two replicas in one process would share whatever is keyed by the process (its pid, an id made
 * at start) and hide it.
 */
function replicaProcess(cfg: RateLimitConfig): Promise<{ url: string; child: ChildProcess }> {
  const dist = join(__dirname, '..', 'dist');
  const script = `
    const Fastify = require('fastify');
    const { installErrorHandler } = require(${JSON.stringify(join(dist, 'errors.js'))});
    const { installRateLimits } = require(${JSON.stringify(join(dist, 'rate-limits.js'))});
    (async () => {
      const cfg = JSON.parse(process.env.RATE_LIMIT_CONFIG);
      const app = Fastify();
      installErrorHandler(app);
      const limits = await installRateLimits(app, cfg);
      app.get('/t/:token/:tenant', async (req, reply) => {
        const { token, tenant } = req.params;
        if (!(await limits.charge(req, reply, [[cfg.perToken, 'api:' + token], [cfg.perTenant, 'tenant:' + tenant]]))) return reply;
        return { success: true };
      });
      console.log(await app.listen({ port: 0, host: '127.0.0.1' }));
    })();`;
  const child = spawn(process.execPath, ['-e', script], {
    cwd: join(__dirname, '..'),
    env: { ...process.env, RATE_LIMIT_CONFIG: JSON.stringify(cfg) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', (url) => resolve({ url, child }));
    child.once('exit', (code) => reject(new Error(`replica exited with ${code}`)));
  });
}

describe('rate limits shared through Redis', () => {
  it('counts across two gateway replicas, each its own process', async () => {
    const cfg = config({ redisUrl: REDIS_URL });
    const replicas = await Promise.all([replicaProcess(cfg), replicaProcess(cfg)]);
    try {
      const codes = [];
      for (const { url } of [...replicas, ...replicas]) codes.push((await fetch(`${url}/t/x/9`)).status);
      expect(codes).toEqual([200, 200, 200, 429]);
    } finally {
      for (const { child } of replicas) child.kill('SIGKILL');
    }
  });

  it('lets requests through when Redis is unreachable', async () => {
    const app = await appWith(config({ redisUrl: 'redis://127.0.0.1:1' }));
    try {
      for (let i = 0; i < 5; i++) expect((await app.inject({ method: 'GET', url: '/t/y/8' })).statusCode).toBe(200);
    } finally {
      await app.close();
    }
  });
});
