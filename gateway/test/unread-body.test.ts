import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { buildGateway, type Gateway } from '../src/app';
import { readGatewayConfig } from '../src/config';
import { installErrorHandler } from '../src/errors';
import { installUnreadBodyDrain } from '../src/unread-body';

// A refused body (413, the body budget's 503) reaches every ordinary client as an answer, never as
// a broken connection: the gateway reads the rest of the body into nothing (unread-body.ts).

// Static files play no part here, and @fastify/static loads an ES module jest's CommonJS runtime cannot.
jest.mock('@fastify/static', () => {
  const plugin = async () => undefined;
  return Object.assign(plugin, { default: plugin, fastifyStatic: plugin });
});

const MiB = 1024 * 1024;
const RUNS = 100;
/** A JSON body twice the routes' 1 MiB limit, as the e2e hardening test sends to addTag. */
const TWO_MIB = JSON.stringify({ ticketId: 0, body: 'x'.repeat(2 * MiB) });
const env = {
  SUPER_ADMIN_TOKEN: 'x'.repeat(20),
  SUBGRAPH_TOKEN: 'g'.repeat(32),
  SESSION_SECRET: 's'.repeat(32),
  RATE_LIMIT_PER_TOKEN: '0',
  RATE_LIMIT_PER_TENANT: '0',
  // Takes the four 2 MiB bodies in flight at once, not one beside a held 15 MiB upload.
  BODY_BUDGET_BYTES: String(16 * MiB),
};
const headers = { authorization: 'Bearer integration-token', 'content-type': 'application/json' };

/** `fetch`'s status, or the error it failed with: undici writes its whole body before it reads. */
async function byFetch(url: string): Promise<string> {
  try {
    const res = await fetch(url, { method: 'POST', headers, body: TWO_MIB, signal: AbortSignal.timeout(10_000) });
    return `${res.status} ${(await res.json()).error}`;
  } catch (err) {
    return `broken: ${String((err as Error).cause ?? err)}`;
  }
}

/** curl's status, or its error; `expect: false` turns off the `Expect: 100-continue` it sends above 1 MiB. */
function byCurl(url: string, file: string, opts: { expect: boolean }): Promise<string> {
  const args = ['-sS', '-o', '/dev/null', '-w', '%{http_code}', '--max-time', '10', '-X', 'POST', '--data-binary', `@${file}`];
  for (const [name, value] of Object.entries(headers)) args.push('-H', `${name}: ${value}`);
  if (!opts.expect) args.push('-H', 'Expect:');
  return new Promise((resolve) =>
    execFile('curl', [...args, url], (err, stdout, stderr) => resolve(err ? `broken: ${stderr.trim()}` : stdout)),
  );
}

/** How many times each outcome came back out of `runs` tries, four at a time. */
async function outcomes(runs: number, attempt: (i: number) => Promise<string>): Promise<Record<string, number>> {
  const seen: Record<string, number> = {};
  let next = 0;
  const lane = async () => {
    for (let i = next++; i < runs; i = next++) {
      const outcome = await attempt(i);
      seen[outcome] = (seen[outcome] ?? 0) + 1;
    }
  };
  await Promise.all([lane(), lane(), lane(), lane()]);
  return seen;
}

/** A raw HTTP/1.1 connection: what it sent, and all it got back until the server closed it. */
function rawConnection(port: number) {
  const socket = connect(port, '127.0.0.1');
  let received = '';
  socket.setEncoding('latin1');
  socket.on('data', (chunk: string) => (received += chunk));
  const closed = new Promise<{ error?: string }>((resolve) => {
    socket.on('error', (err) => resolve({ error: (err as NodeJS.ErrnoException).code }));
    socket.on('close', () => resolve({}));
  });
  return { socket, closed, received: () => received };
}

describe('a refused body on the gateway', () => {
  let gw: Gateway;
  let url: string;
  let port: number;
  let dir: string;
  let file: string;
  beforeAll(async () => {
    gw = await buildGateway(readGatewayConfig(env), { logger: false });
    // Any token is an integration of tenant 1: the body is refused before anything else is asked.
    gw.clients.tenants.ResolveApiToken = (async () => ({
      apiId: 'a1',
      tenantId: 1,
      sessionId: 1,
      userId: 1,
    })) as unknown as typeof gw.clients.tenants.ResolveApiToken;
    await gw.app.listen({ port: 0, host: '127.0.0.1' });
    port = (gw.app.server.address() as { port: number }).port;
    url = `http://127.0.0.1:${port}/v2/api/external/a1/addTag`;
    dir = mkdtempSync(join(tmpdir(), 'unread-body-'));
    file = join(dir, 'body.json');
    writeFileSync(file, TWO_MIB);
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    gw.auth.close();
    // A gateway built outside main.ts takes long to close (its process exits instead): bounded here.
    await Promise.race([gw.app.close(), new Promise((r) => setTimeout(r, 1_000).unref())]);
  });

  it(`answers a body over the limit 413 to fetch and curl, ${RUNS} times each, never a broken connection`, async () => {
    expect(await outcomes(RUNS, () => byFetch(url))).toEqual({ '413 ERR_PAYLOAD_TOO_LARGE': RUNS });
    // Every other one asks `Expect: 100-continue` (curl's own choice above 1 MiB), is told to go on
    // (the body fits the budget), then refused while it sends.
    expect(await outcomes(RUNS, (i) => byCurl(url, file, { expect: i % 2 === 0 }))).toEqual({ '413': RUNS });
  });

  it(`answers the body budget's 503 to fetch and curl, ${RUNS} times each, while another body is held`, async () => {
    // An admitted upload to a media route that stops after its first bytes holds 15 of the 16 MiB.
    const holder = rawConnection(port);
    holder.socket.write(
      `POST /v2/api/external/a1/sendMessageByTicket HTTP/1.1\r\nhost: x\r\nauthorization: ${headers.authorization}\r\ncontent-type: application/json\r\ncontent-length: ${15 * MiB}\r\n\r\n{"ticketId":`,
    );
    try {
      for (let i = 0; i < 200 && !(await heldBytes(url)); i++) await new Promise((r) => setTimeout(r, 10));
      expect(await outcomes(RUNS, () => byFetch(url))).toEqual({ '503 ERR_BUSY': RUNS });
      // Asked `Expect: 100-continue`, the refusal comes before curl sends anything; otherwise while it sends.
      expect(await outcomes(RUNS, (i) => byCurl(url, file, { expect: i % 2 === 0 }))).toEqual({ '503': RUNS });
    } finally {
      holder.socket.destroy();
    }
  });

  it('keeps the connection for the next request once the refused body is read', async () => {
    const conn = rawConnection(port);
    conn.socket.write(
      `POST /v2/api/external/a1/addTag HTTP/1.1\r\nhost: x\r\nauthorization: ${headers.authorization}\r\ncontent-type: application/json\r\ncontent-length: ${TWO_MIB.length}\r\n\r\n`,
    );
    conn.socket.write(TWO_MIB);
    conn.socket.end('GET /healthz HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n');
    expect(await conn.closed).toEqual({});
    const statuses = conn.received().match(/HTTP\/1\.1 \d+/g);
    expect(statuses).toEqual(['HTTP/1.1 413', 'HTTP/1.1 200']);
  });
});

/** What the body budget holds now, read from /metrics (the gateway's own gauge). */
async function heldBytes(routeUrl: string): Promise<number> {
  const text = await (await fetch(new URL('/metrics', routeUrl))).text();
  return Number(/^convo_gateway_body_bytes_held (\d+)$/m.exec(text)?.[1] ?? 0);
}

describe('reading a refused body is bounded', () => {
  let app: FastifyInstance;
  let port: number;
  beforeAll(async () => {
    app = Fastify({ bodyLimit: 1024 });
    installErrorHandler(app);
    installUnreadBodyDrain(app, { maxBytes: 256 * 1024, maxMs: 1_000 });
    app.post('/json', async () => ({ success: true }));
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.server.address() as { port: number }).port;
  });
  afterAll(() => app.close());

  /** A chunked body that never ends: 2 KiB at once (refused: past the 1 KiB limit), then `size` bytes every `everyMs`. */
  function endless(size: number, everyMs: number) {
    const conn = rawConnection(port);
    const chunk = (n: number) => `${n.toString(16)}\r\n${'x'.repeat(n)}\r\n`;
    conn.socket.write(
      `POST /json HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n${chunk(2048)}`,
    );
    const timer = setInterval(() => conn.socket.writable && conn.socket.write(chunk(size)), everyMs);
    const answered = new Promise<number>((resolve) => conn.socket.once('data', () => resolve(Date.now())));
    void conn.closed.then(() => clearInterval(timer));
    return { ...conn, answered };
  }
  /** Whether the server closed the connection within `ms` of its answer, and after how long. */
  const closedAfterAnswer = async (conn: ReturnType<typeof endless>, ms: number) => {
    const answeredAt = await conn.answered;
    await Promise.race([conn.closed, new Promise((r) => setTimeout(r, ms))]);
    const closed = conn.socket.destroyed;
    conn.socket.destroy();
    return { closed, ms: Date.now() - answeredAt };
  };

  it('leaves an injected request alone: it has no connection to read or close', async () => {
    const post = (payload: string) =>
      app.inject({ method: 'POST', url: '/json', headers: { 'content-type': 'application/json' }, payload });
    expect((await post('{"a":1}')).statusCode).toBe(200);
    expect((await post('x'.repeat(2048))).statusCode).toBe(413);
    // Past maxMs: nothing was armed to cut a connection that is not there.
    await new Promise((r) => setTimeout(r, 1_200));
  });

  it('closes the connection once the rest passes maxBytes', async () => {
    const conn = endless(16 * 1024, 1);
    const { closed, ms } = await closedAfterAnswer(conn, 900);
    expect({ closed, early: ms < 900 }).toEqual({ closed: true, early: true });
    expect(conn.received()).toMatch(/^HTTP\/1\.1 413/);
  });

  it('closes the connection maxMs after the answer when the body trickles on', async () => {
    const conn = endless(16, 50);
    const { closed, ms } = await closedAfterAnswer(conn, 5_000);
    expect(closed).toBe(true);
    expect(ms).toBeGreaterThanOrEqual(900);
    expect(ms).toBeLessThan(3_000);
    expect(conn.received()).toMatch(/^HTTP\/1\.1 413/);
  });
});
