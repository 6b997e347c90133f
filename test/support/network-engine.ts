import { createServer, type Server } from 'node:http';
import type { Recorded } from './fake-engine';

export interface NetworkEngine {
  url: string;
  requests: Recorded[];
  /** Numbers (digits) the network answers `exists: false` for; every other number exists. */
  offNetwork: Set<string>;
  /** The next /messages answers, in order; afterwards every send is accepted. */
  failNextSend(status: number, body: unknown): void;
  /** Requests to one path, e.g. `/messages`. */
  to(path: string): Recorded[];
  close(): Promise<void>;
}

/**
 * An engine_a server on loopback that also answers Baileys' number check
 * (`POST /contacts/check {jids}` → `[{ jid, exists }]`), recording everything it receives.
 */
export async function startNetworkEngine(): Promise<NetworkEngine> {
  const requests: Recorded[] = [];
  const offNetwork = new Set<string>();
  const queued: Array<{ status: number; body: unknown }> = [];
  let n = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const body = raw ? JSON.parse(raw) : null;
      requests.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      let answer: { status: number; body: unknown };
      if (req.url === '/contacts/check') {
        const jids: string[] = body?.jids ?? [];
        answer = { status: 200, body: jids.map((jid) => ({ jid, exists: !offNetwork.has(jid.split('@')[0]) })) };
      } else {
        answer = queued.shift() ?? { status: 200, body: { key: { id: `NET-${++n}`, fromMe: true } } };
      }
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
    });
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    offNetwork,
    failNextSend: (status, body) => queued.push({ status, body }),
    to: (path) => requests.filter((r) => r.url === path),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
