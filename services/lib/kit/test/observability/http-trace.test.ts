import { randomBytes } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import { currentTraceId } from '../../src/observability/trace-context';
import { traceIdServerFactory } from '../../src/observability/http-trace';
import { startTracing } from '../../src/observability/tracing';

/**
 * With export off the kit's HTTP servers carry the trace id themselves (no instrumentation): the
 * request's traceparent is continued through Fastify's handling, body parsing included, and the
 * server keeps the options Fastify would have given a server of its own.
 */
describe('traceIdServerFactory (export off)', () => {
  let app: FastifyInstance;
  let url: string;

  beforeAll(async () => {
    expect(startTracing({})).toBe(false);
    app = Fastify({ serverFactory: traceIdServerFactory(), keepAliveTimeout: 1_234, requestTimeout: 4_321 });
    app.post('/echo', async (req) => {
      await new Promise((r) => setTimeout(r, 5));
      return { traceId: currentTraceId(), size: JSON.stringify(req.body).length };
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}/echo`;
  });
  afterAll(() => app.close());

  const post = (headers: Record<string, string> = {}) =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ text: 'x'.repeat(300_000) }),
    }).then((r) => r.json() as Promise<{ traceId?: string; size: number }>);

  it("continues the caller's traceparent through a body that arrives in many chunks", async () => {
    const traceId = randomBytes(16).toString('hex');
    const res = await post({ traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` });
    expect(res).toEqual({ traceId, size: 300_011 });
  });

  it('begins a trace of its own for a request without one', async () => {
    const [a, b] = [await post(), await post()];
    expect(a.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(b.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(a.traceId).not.toBe(b.traceId);
  });

  it('keeps the server options Fastify applies to a server it makes', () => {
    expect([app.server.keepAliveTimeout, app.server.requestTimeout]).toEqual([1_234, 4_321]);
  });
});
