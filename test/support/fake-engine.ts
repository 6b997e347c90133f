import { createServer, type IncomingMessage, type Server } from 'node:http';

export interface Recorded {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: any;
  /** When its body arrived (Date.now()). */
  at?: number;
}

export interface FakeEngine {
  url: string;
  requests: Recorded[];
  /** The next answers, in order; afterwards every request is answered 200 with a key id. */
  failNext(status: number, body: unknown): void;
  /** From now on every answer waits this long (a slow provider). */
  delay(ms: number): void;
  close(): Promise<void>;
}

/**
 * A stand-in engine server on loopback that records what it receives (engine_a's contract; its
 * answers also satisfy the Cloud API's send, so the bench points waba channels at it).
 * `keepAliveMs` is how long it keeps an idle connection open (Node's `keepAliveTimeout`). It
 * announces it in `Keep-Alive: timeout=…`, and undici closes a connection after each request when
 * that is under its 2 s margin: the tests' 1 s makes every provider call a new connection.
 */
export async function startFakeEngine(opts: { keepAliveMs?: number } = {}): Promise<FakeEngine> {
  const requests: Recorded[] = [];
  const queued: Array<{ status: number; body: unknown }> = [];
  let n = 0;
  let delayMs = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      requests.push({ method: req.method!, url: req.url!, headers: req.headers, body: raw ? JSON.parse(raw) : null, at: Date.now() });
      // engine_a's answer, and the Cloud API's (messages[0].id) for a waba channel pointed here.
      const id = `ENGINE-${++n}`;
      const next = queued.shift() ?? {
        status: 200,
        body: { key: { id, fromMe: true }, status: 'PENDING', messaging_product: 'whatsapp', messages: [{ id }] },
      };
      const answer = () => res.writeHead(next.status, { 'content-type': 'application/json' }).end(JSON.stringify(next.body));
      if (delayMs) setTimeout(answer, delayMs);
      else answer();
    });
  });
  server.keepAliveTimeout = opts.keepAliveMs ?? 1000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    failNext: (status, body) => queued.push({ status, body }),
    delay: (ms) => (delayMs = ms),
    close: () => new Promise((r) => server.close(() => r())),
  };
}
