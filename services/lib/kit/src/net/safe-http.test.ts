// Every server here listens on 127.0.0.1 and is reached only through an allow list (the
// operator's escape hatch); names other than `localhost` go through an injected resolver, so no
// traffic leaves the machine. The bypass tests aim at a live local server and assert it saw no
// request: a filter that let the form through would get a 200 and fail the test.

import * as http from 'node:http';
import * as net from 'node:net';
import type { AddressInfo } from 'node:net';
import { DomainError } from '../errors';
import { EMPTY_ALLOW_LIST, parseAllowList } from './allow-list';
import {
  checkUrl,
  guardedLookup,
  type ResolvedAddress,
  type Resolver,
  safeRequest,
  safeRequestWith,
  type SafeRequestOptions,
} from './safe-http';

interface Recorded {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  remotePort: number;
}

interface TestServer {
  port: number;
  requests: Recorded[];
  url(path?: string): string;
}

const servers: net.Server[] = [];
const sockets = new Set<net.Socket>();

async function listen(server: net.Server): Promise<number> {
  servers.push(server);
  server.on('connection', (socket: net.Socket) => sockets.add(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

async function startServer(handler: Handler): Promise<TestServer> {
  const requests: Recorded[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      const { method, url, headers } = req;
      requests.push({ method: method!, url: url!, headers, body, remotePort: req.socket.remotePort! });
      handler(req, res);
    });
  });
  const port = await listen(server);
  return { port, requests, url: (path = '/') => `http://127.0.0.1:${port}${path}` };
}

const okServer = () => startServer((_req, res) => res.end('ok'));

afterEach(async () => {
  for (const socket of sockets) socket.destroy();
  sockets.clear();
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

const LOCAL = parseAllowList('127.0.0.1');
const limits: SafeRequestOptions = { connectTimeoutMs: 2000, totalTimeoutMs: 5000, maxBytes: 1_000_000 };

/** A resolver answering fixed addresses, counting calls: stands in for DNS. */
function fakeResolver(...answers: string[][]): Resolver & { calls: string[] } {
  const calls: string[] = [];
  const resolve = async (hostname: string): Promise<ResolvedAddress[]> => {
    const answer = answers[Math.min(calls.length, answers.length - 1)];
    calls.push(hostname);
    return answer.map((address) => ({ address, family: net.isIP(address) }));
  };
  return Object.assign(resolve, { calls });
}

async function expectError(promise: Promise<unknown>, code: string, reason?: string): Promise<DomainError> {
  const err = await promise.then(
    () => {
      throw new Error(`expected ${code}, got a response`);
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(DomainError);
  expect((err as DomainError).code).toBe(code);
  if (reason) expect((err as DomainError).details).toEqual([{ reason }]);
  return err as DomainError;
}

describe('safeRequest: literal addresses in every form', () => {
  it.each([
    ['decimal', (p: number) => `http://2130706433:${p}/`],
    ['hex', (p: number) => `http://0x7f.0.0.1:${p}/`],
    ['whole hex', (p: number) => `http://0x7f000001:${p}/`],
    ['octal', (p: number) => `http://017700000001:${p}/`],
    ['dotted octal', (p: number) => `http://0177.0.0.1:${p}/`],
    ['short', (p: number) => `http://127.1:${p}/`],
    ['dotted', (p: number) => `http://127.0.0.1:${p}/`],
    ['trailing dot', (p: number) => `http://127.0.0.1.:${p}/`],
    ['zero', (p: number) => `http://0:${p}/`],
    ['unspecified', (p: number) => `http://0.0.0.0:${p}/`],
    ['IPv6 loopback', (p: number) => `http://[::1]:${p}/`],
    ['IPv4-mapped', (p: number) => `http://[::ffff:127.0.0.1]:${p}/`],
    ['IPv4-mapped hex', (p: number) => `http://[::ffff:7f00:1]:${p}/`],
    ['IPv4-mapped long', (p: number) => `http://[0:0:0:0:0:FFFF:7F00:0001]:${p}/`],
    ['IPv4-compatible', (p: number) => `http://[::127.0.0.1]:${p}/`],
    ['NAT64', (p: number) => `http://[64:ff9b::127.0.0.1]:${p}/`],
    ['6to4', (p: number) => `http://[2002:7f00:1::]:${p}/`],
    ['https', (p: number) => `https://127.0.0.1:${p}/`],
  ])('blocks the %s form of loopback', async (_form, url) => {
    const server = await okServer();
    const err = await expectError(safeRequest(url(server.port), limits), 'ERR_URL_BLOCKED');
    expect(err.kind).toBe('validation');
    expect(server.requests).toHaveLength(0);
  });

  it.each([
    'http://169.254.169.254/latest/meta-data/',
    'http://[::ffff:169.254.169.254]/latest/meta-data/',
    'http://10.0.0.1/',
    'http://172.16.0.1/',
    'http://192.168.0.1/',
    'http://100.64.0.1/',
    'http://[fd00::1]/',
    'http://[fe80::1]/',
  ])('blocks the private literal %s before connecting', async (url) => {
    const err = await expectError(safeRequest(url, limits), 'ERR_URL_BLOCKED');
    // Refused by the URL check, which runs before any socket exists (a refusal at connect time
    // says "resolves to a non-public address").
    expect(err.details).toEqual([{ field: 'url', message: expect.stringMatching(/^address \S+ is not public/) }]);
    expect(() => checkUrl(url, EMPTY_ALLOW_LIST)).toThrow(DomainError);
  });
});

describe('safeRequest: URL rules', () => {
  // The allow list admits the server, so only the rule under test can refuse these.
  it.each(['ftp', 'file', 'gopher', 'ws', 'data'])('refuses the %s: scheme', async (scheme) => {
    const server = await okServer();
    const urls: Record<string, string> = { data: 'data:text/plain,hi', file: 'file:///etc/passwd' };
    const url = urls[scheme] ?? `${scheme}://127.0.0.1:${server.port}/x`;
    const err = await expectError(safeRequest(url, { ...limits, allowPrivate: LOCAL }), 'ERR_URL_BLOCKED');
    expect(err.details).toEqual([{ field: 'url', message: 'only http and https URLs are allowed' }]);
    expect(server.requests).toHaveLength(0);
  });

  it.each(['user:pass@', 'user@', ':pass@'])('refuses credentials (%s)', async (userinfo) => {
    const server = await okServer();
    const url = `http://${userinfo}127.0.0.1:${server.port}/`;
    const err = await expectError(safeRequest(url, { ...limits, allowPrivate: LOCAL }), 'ERR_URL_BLOCKED');
    expect(err.details).toEqual([{ field: 'url', message: 'credentials in URLs are not allowed' }]);
    expect(server.requests).toHaveLength(0);
  });

  it.each(['not a url', 'http://', '/relative/path', 'http://[::1/'])('refuses the malformed URL %j', async (url) => {
    await expectError(safeRequest(url, limits), 'ERR_URL_BLOCKED');
  });

  it('refuses limits that would disable a cap', async () => {
    for (const bad of [NaN, 0, -1, Infinity]) {
      await expectError(safeRequest('http://8.8.8.8/', { ...limits, maxBytes: bad }), 'ERR_INVALID_OPTIONS');
    }
  });
});

describe('safeRequest: host names are checked at connect time', () => {
  it('blocks http://localhost/ (it resolves to loopback) without naming the address', async () => {
    const server = await okServer();
    const err = await expectError(safeRequest(`http://localhost:${server.port}/`, limits), 'ERR_URL_BLOCKED');
    expect(JSON.stringify(err.details)).not.toContain('127.0.0.1');
    expect(server.requests).toHaveLength(0);
  });

  it('connects to the resolved address when every address is permitted (control)', async () => {
    const server = await okServer();
    const resolve = fakeResolver(['127.0.0.1']);
    const url = `http://hooks.test:${server.port}/`;
    const res = await safeRequestWith(url, { ...limits, allowPrivate: LOCAL }, { resolve });
    expect(res.status).toBe(200);
    expect(resolve.calls).toEqual(['hooks.test']);
    expect(server.requests[0].headers.host).toBe(`hooks.test:${server.port}`);
  });

  it('blocks a name resolving to [permitted, 10.0.0.1]: ANY blocked address refuses', async () => {
    const server = await okServer();
    const resolve = fakeResolver(['127.0.0.1', '10.0.0.1']);
    const url = `http://media.test:${server.port}/`;
    await expectError(safeRequestWith(url, { ...limits, allowPrivate: LOCAL }, { resolve }), 'ERR_URL_BLOCKED');
    expect(server.requests).toHaveLength(0);
  });

  it.each([['169.254.169.254'], ['::ffff:10.0.0.1'], ['fd00::1'], ['10.0.0.1', '8.8.8.8']])(
    'blocks a name resolving to %s',
    async (...addresses) => {
      const resolve = fakeResolver(addresses);
      await expectError(safeRequestWith('http://media.test:9/', limits, { resolve }), 'ERR_URL_BLOCKED');
    },
  );

  it('checks every connection afresh: a second answer cannot rebind to a private address', async () => {
    const server = await okServer();
    const resolve = fakeResolver(['127.0.0.1'], ['10.0.0.1']);
    const opts = { ...limits, allowPrivate: LOCAL };
    const url = `http://rebind.test:${server.port}/`;
    expect((await safeRequestWith(url, opts, { resolve })).status).toBe(200);
    await expectError(safeRequestWith(url, opts, { resolve }), 'ERR_URL_BLOCKED');
    expect(resolve.calls).toHaveLength(2);
    expect(server.requests).toHaveLength(1);
  });

  it("reports a name that does not exist as the caller's mistake (ERR_URL_UNRESOLVED), not a fetch failure", async () => {
    const notFound = Object.assign(new Error('getaddrinfo ENOTFOUND missing.test'), { code: 'ENOTFOUND' });
    const resolve: Resolver = () => Promise.reject(notFound);
    const err = await expectError(safeRequestWith('http://missing.test/', limits, { resolve }), 'ERR_URL_UNRESOLVED');
    expect(err.kind).toBe('validation');
  });
});

describe('guardedLookup', () => {
  const lookupOnce = (addresses: string[], options: { all?: boolean; family?: number } = {}) =>
    new Promise<{ err: Error | null; address: unknown; family?: number }>((resolve) => {
      guardedLookup(fakeResolver(addresses), parseAllowList(undefined))('media.test', options, (err, address, family) =>
        resolve({ err, address, family }),
      );
    });

  it('refuses [public, 10.0.0.1] and [169.254.169.254]', async () => {
    for (const answer of [['8.8.8.8', '10.0.0.1'], ['169.254.169.254']]) {
      const { err } = await lookupOnce(answer);
      expect((err as DomainError).code).toBe('ERR_URL_BLOCKED');
    }
  });

  it('hands over the checked addresses in the form the socket asked for', async () => {
    expect(await lookupOnce(['8.8.8.8', '1.1.1.1'])).toEqual({ err: null, address: '8.8.8.8', family: 4 });
    expect((await lookupOnce(['2001:4860:4860::8888', '8.8.8.8'], { all: true })).address).toEqual([
      { address: '2001:4860:4860::8888', family: 6 },
      { address: '8.8.8.8', family: 4 },
    ]);
    expect(await lookupOnce(['2001:4860:4860::8888', '8.8.8.8'], { family: 4 })).toEqual({
      err: null,
      address: '8.8.8.8',
      family: 4,
    });
  });
});

describe('safeRequest: WEBHOOK_ALLOWED_PRIVATE', () => {
  it.each([['127.0.0.1'], ['127.0.0.0/8'], [' 10.0.0.0/8, 127.0.0.0/8 ']])(
    '%s lets a webhook reach a local server by address',
    async (env) => {
      const server = await okServer();
      const res = await safeRequest(server.url('/hook'), { ...limits, allowPrivate: parseAllowList(env) });
      expect(res.status).toBe(200);
      expect(res.body.toString()).toBe('ok');
      expect(server.requests.map((r) => r.url)).toEqual(['/hook']);
    },
  );

  it('localhost lets a webhook reach http://localhost/ (the allow-listed name may be private)', async () => {
    const server = await okServer();
    const opts = { ...limits, allowPrivate: parseAllowList('localhost') };
    const res = await safeRequest(`http://localhost:${server.port}/`, opts);
    expect(res.status).toBe(200);
    expect(server.requests).toHaveLength(1);
  });

  it('admits only what it lists', async () => {
    const server = await okServer();
    for (const env of ['localhost', '10.0.0.0/8', '127.0.0.2', 'hooks.test']) {
      await expectError(safeRequest(server.url(), { ...limits, allowPrivate: parseAllowList(env) }), 'ERR_URL_BLOCKED');
    }
    expect(server.requests).toHaveLength(0);
  });
});

describe('safeRequest: size cap', () => {
  it('aborts a 10 MB stream at 1 MB and destroys the socket at once', async () => {
    let sent = 0;
    let hungUp = false;
    let closed = false;
    const server = await startServer((_req, res) => {
      // Closed before the server finished sending: the client hung up.
      res.on('close', () => {
        closed = true;
        hungUp = !res.writableFinished;
      });
      const chunk = Buffer.alloc(64 * 1024, 'x');
      // Paced, so the test measures our abort and not how much the kernel buffers can hold.
      const pump = () => {
        if (res.destroyed || sent >= 10 * 1024 * 1024) return void res.end();
        sent += chunk.length;
        if (res.write(chunk)) setTimeout(pump, 1);
        else res.once('drain', pump);
      };
      pump();
    });
    const opts = { ...limits, maxBytes: 1024 * 1024, allowPrivate: LOCAL };
    const err = await expectError(safeRequest(server.url(), opts), 'ERR_PAYLOAD_TOO_LARGE');
    expect(err.kind).toBe('payload_too_large');
    // Nothing else would close it: the request settled (no timer left) and the server paces on.
    await waitFor(() => closed, 10_000);
    expect(hungUp).toBe(true);
    expect(sent).toBeLessThan(10 * 1024 * 1024);
  });

  it('accepts a body of exactly maxBytes and refuses one byte more (no content-length)', async () => {
    const server = await startServer((req, res) => {
      res.write(Buffer.alloc(req.url === '/over' ? 1001 : 1000, 'y'));
      res.end();
    });
    const opts = { ...limits, maxBytes: 1000, allowPrivate: LOCAL };
    expect((await safeRequest(server.url('/exact'), opts)).body).toHaveLength(1000);
    await expectError(safeRequest(server.url('/over'), opts), 'ERR_PAYLOAD_TOO_LARGE');
  });

  it('refuses an announced content-length over the cap before reading the body', async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-length': String(5 * 1024 * 1024) });
      res.flushHeaders(); // then stall: only the announcement can trigger the refusal
    });
    const opts = { ...limits, maxBytes: 1024 * 1024, allowPrivate: LOCAL };
    const err = await expectError(safeRequest(server.url(), opts), 'ERR_PAYLOAD_TOO_LARGE');
    // Refused on the announced size (reading the stalled body would have ended in a timeout).
    expect(err.message).toBe('Response of 5242880 bytes exceeds the 1048576 byte limit');
  });
});

async function waitFor(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
}

describe('safeRequest: timeouts', () => {
  it('enforces the total timeout on a server that sends headers then stalls', async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('partial');
    });
    const started = Date.now();
    const opts = { ...limits, totalTimeoutMs: 300, allowPrivate: LOCAL };
    // Only the total timer gives this reason; not before it fires, however much later.
    await expectError(safeRequest(server.url(), opts), 'ERR_FETCH_FAILED', 'total-timeout');
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
  });

  it('enforces the connect timeout while name resolution never answers', async () => {
    const resolve: Resolver = () => new Promise(() => undefined);
    const opts = { ...limits, connectTimeoutMs: 100, totalTimeoutMs: 5000 };
    // The connect timer, not the total one, ended it: it says which.
    await expectError(safeRequestWith('http://stall.test/', opts, { resolve }), 'ERR_FETCH_FAILED', 'connect-timeout');
  });

  it('enforces the connect timeout on an https peer that accepts TCP but never completes TLS', async () => {
    let closed = false;
    // Reads (and ignores) the ClientHello, so it sees the client's FIN once the socket is dropped.
    const silent = net.createServer((socket) => socket.resume().on('close', () => (closed = true)));
    const port = await listen(silent);
    const opts = { ...limits, connectTimeoutMs: 150, totalTimeoutMs: 5000, allowPrivate: LOCAL };
    await expectError(safeRequest(`https://127.0.0.1:${port}/`, opts), 'ERR_FETCH_FAILED', 'connect-timeout');
    await waitFor(() => closed, 10_000);
    expect(closed).toBe(true);
  });

  it('stops the connect timer once connected: a slow response is bounded by the total timeout only', async () => {
    const server = await startServer((_req, res) => setTimeout(() => res.end('late'), 300));
    const opts = { ...limits, connectTimeoutMs: 100, allowPrivate: LOCAL };
    const res = await safeRequest(server.url(), opts);
    expect(res.body.toString()).toBe('late');
  });

  it('reports a refused connection as a fetch failure', async () => {
    const port = await listen(net.createServer());
    await new Promise((resolve) => servers.pop()!.close(resolve));
    const opts = { ...limits, allowPrivate: LOCAL };
    await expectError(safeRequest(`http://127.0.0.1:${port}/`, opts), 'ERR_FETCH_FAILED', 'network');
  });
});

describe('safeRequest: exchange', () => {
  it('returns a 302 with its location and does not follow it', async () => {
    const server = await startServer((req, res) => {
      if (req.url === '/start') res.writeHead(302, { location: '/next' }).end();
      else res.end('followed');
    });
    const res = await safeRequest(server.url('/start'), { ...limits, allowPrivate: LOCAL });
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe('/next');
    expect(server.requests.map((r) => r.url)).toEqual(['/start']);
  });

  it('returns error statuses as results, with their body', async () => {
    const server = await startServer((_req, res) => res.writeHead(503).end('down'));
    const res = await safeRequest(server.url(), { ...limits, allowPrivate: LOCAL });
    expect([res.status, res.body.toString()]).toEqual([503, 'down']);
  });

  it('delivers the POST body and headers', async () => {
    const server = await startServer((_req, res) => res.writeHead(204).end());
    const body = JSON.stringify({ event: 'message.sent', text: 'olá' });
    const res = await safeRequest(server.url('/hook?tenant=t1'), {
      ...limits,
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-signature': 'sha256=abc' },
      body,
      allowPrivate: LOCAL,
    });
    expect(res.status).toBe(204);
    const [got] = server.requests;
    expect(got.method).toBe('POST');
    expect(got.url).toBe('/hook?tenant=t1');
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['x-signature']).toBe('sha256=abc');
    expect(got.headers['content-length']).toBe(String(Buffer.byteLength(body)));
    expect(got.body).toBe(body);
  });

  it('opens a fresh socket for every request: no pooled connection is reused', async () => {
    const server = await okServer();
    const opts = { ...limits, allowPrivate: LOCAL };
    await safeRequest(server.url('/a'), opts);
    await safeRequest(server.url('/b'), opts);
    const [a, b] = server.requests;
    expect(a.remotePort).not.toBe(b.remotePort);
    expect(a.headers.connection).toBe('close');
  });
});
