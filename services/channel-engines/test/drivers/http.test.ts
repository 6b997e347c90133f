import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DomainError } from '@convo/kit';
import { requestJson } from '../../src/drivers/http';
import { providerLookup, LinkLocalRefused } from '../../src/drivers/provider-address';

// The provider client itself, against real HTTP servers on loopback: what every driver relies on.

interface Recorder {
  url: string;
  requests: string[];
  connections: number;
  close: () => Promise<void>;
}

async function serve(answer: (req: IncomingMessage, res: ServerResponse) => void): Promise<Recorder> {
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    req.resume();
    req.on('end', () => answer(req, res));
  });
  const rec = {
    url: '',
    requests,
    connections: 0,
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
  server.on('connection', () => rec.connections++);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  rec.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return rec;
}

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) =>
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));

const servers: Recorder[] = [];
const start = async (answer: Parameters<typeof serve>[0]) => {
  const s = await serve(answer);
  servers.push(s);
  return s;
};
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const failureOf = (p: Promise<unknown>) =>
  p.then(
    () => Promise.reject(new Error('expected a failure')),
    (err: DomainError) => err,
  );

describe('requestJson', () => {
  it('keeps the connection to a provider open between calls', async () => {
    const provider = await start((_req, res) => json(res, 200, { id: 'ok' }));
    for (let i = 0; i < 10; i++) {
      await expect(requestJson(`${provider.url}/messages`, { body: { i }, timeoutMs: 2_000, provider: 'engine' })).resolves.toEqual({
        status: 200,
        body: { id: 'ok' },
      });
    }
    expect(provider.requests).toHaveLength(10);
    // The pool may open a second connection while the first is finishing its answer; not one per call.
    expect(provider.connections).toBeLessThanOrEqual(2);
  });

  it('does not follow a redirect: the answer is a refusal and the other address gets nothing', async () => {
    const elsewhere = await start((_req, res) => json(res, 200, { id: 'stolen' }));
    const provider = await start((_req, res) => res.writeHead(302, { location: `${elsewhere.url}/steal` }).end());
    const err = await failureOf(requestJson(`${provider.url}/messages`, { body: {}, timeoutMs: 2_000, provider: 'engine' }));
    expect(err.code).toBe('ERR_PROVIDER_FAILED');
    expect(err.details).toEqual([expect.objectContaining({ provider: 'engine', status: 302 })]);
    expect(elsewhere.requests).toEqual([]);
  });

  it("marks a 429 transient with the provider's Retry-After, and a 400 not transient", async () => {
    const provider = await start((req, res) =>
      req.url === '/busy' ? json(res, 429, { message: 'slow down' }, { 'retry-after': '7' }) : json(res, 400, { message: 'bad number' }),
    );
    const busy = await failureOf(requestJson(`${provider.url}/busy`, { body: {}, timeoutMs: 2_000, provider: 'engine' }));
    expect(busy.details).toEqual([expect.objectContaining({ status: 429, transient: true, retryAfter: '7' })]);
    const refused = await failureOf(requestJson(`${provider.url}/bad`, { body: {}, timeoutMs: 2_000, provider: 'engine' }));
    expect(refused.message).toContain('bad number');
    expect(refused.details).toEqual([expect.not.objectContaining({ transient: true })]);
  });

  it('times out a provider that stalls after its headers', async () => {
    const provider = await start((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).write('{"id":'));
    const err = await failureOf(requestJson(`${provider.url}/messages`, { body: {}, timeoutMs: 200, provider: 'engine' }));
    expect(err.message).toBe('engine is unreachable: no answer within 200 ms');
    expect(err.details).toEqual([{ provider: 'engine', transient: true }]);
  });
});

// ---- addresses no provider is at -----------------------------------------------------------

describe('a link-local provider address (cloud metadata)', () => {
  it('is refused before any request, literal in any form, and at once (not retried)', async () => {
    for (const url of [
      'http://169.254.169.254/latest/meta-data',
      'http://[::ffff:169.254.169.254]/x',
      'http://0xa9fea9fe/x',
      'http://[fe80::1]/x',
    ]) {
      const err = (await requestJson(url, { timeoutMs: 2_000, provider: 'engine_a', body: {} }).catch((e: unknown) => e)) as DomainError;
      expect(err.code).toBe('ERR_PROVIDER_FAILED');
      expect(err.message).toMatch(/link-local/);
      expect(err.details?.[0]).not.toHaveProperty('transient');
    }
  });

  it('is refused when a name resolves to one, and a name that resolves elsewhere is looked up as usual', async () => {
    const answer = (address: string) => (_h: string, _o: unknown, cb: (e: null, a: Array<{ address: string; family: number }>) => void) =>
      cb(null, [
        { address: '10.1.2.3', family: 4 },
        { address, family: address.includes(':') ? 6 : 4 },
      ]);
    const outcome = (address: string, all: boolean) =>
      new Promise<unknown[]>((resolve) =>
        providerLookup(answer(address) as never)('engine.internal', { all } as never, (...args: unknown[]) => resolve(args)),
      );
    const [refused] = await outcome('169.254.169.254', false);
    expect(refused).toBeInstanceOf(LinkLocalRefused);
    expect((await outcome('fe80::a', true))[0]).toBeInstanceOf(LinkLocalRefused);
    expect(await outcome('10.9.9.9', false)).toEqual([null, '10.1.2.3', 4]);
    expect((await outcome('127.0.0.1', true))[1]).toEqual([
      { address: '10.1.2.3', family: 4 },
      { address: '127.0.0.1', family: 4 },
    ]);
  });

  it('leaves the operator its private and loopback engines', async () => {
    const engine = await start((_req, res) => json(res, 200, { ok: true }));
    const localhost = engine.url.replace('127.0.0.1', 'localhost');
    await expect(requestJson(`${localhost}/send`, { timeoutMs: 2_000, provider: 'engine_a', body: {} })).resolves.toEqual({
      status: 200,
      body: { ok: true },
    });
    expect(engine.requests).toEqual(['POST /send']);
  });
});
