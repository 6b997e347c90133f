import { createServer, type Server } from 'node:http';
import type { Recorded } from './fake-engine';

/** A template as Meta's `GET /{waba-id}/message_templates` lists it. */
export interface MetaTemplate {
  name: string;
  language: string;
  status: string;
  category: string;
  components: Array<Record<string, unknown>>;
}

export interface FakeGraph {
  /** The Graph API's base (what META_GRAPH_URL is set to). */
  url: string;
  requests: Recorded[];
  /** The catalog `message_templates` answers, page by page (`limit`, `after`). */
  catalog: MetaTemplate[];
  /** The contact wrote: Meta takes free-form messages to it (the test's incoming webhook says so too). */
  wrote(number: string): void;
  /** POST …/messages requests (what left through the Cloud API). */
  sends(): Recorded[];
  /** POST …/marketing_messages requests (what left through the Marketing Messages API). */
  marketingSends(): Recorded[];
  /** What the linked engine (engine_a under /engine) received. */
  engineSends(): Recorded[];
  /** GET …/message_templates requests. */
  catalogReads(): Recorded[];
  close(): Promise<void>;
}

const graphError = (code: number, message: string) => ({
  error: {
    message,
    type: 'OAuthException',
    code,
    error_data: { messaging_product: 'whatsapp', details: message },
    fbtrace_id: `trace-${code}`,
  },
});

/**
 * Meta's Graph API as the waba driver meets it, on loopback: `POST /{phone-number-id}/messages`
 * refuses a free-form message to a contact that has not written (131047, HTTP 400, as Meta does)
 * and a template its catalog lacks (132001), and answers `messages[0].id` otherwise;
 * `POST /{phone-number-id}/marketing_messages` (the Marketing Messages API) answers a template alike;
 * `GET /{waba-id}/message_templates` answers the catalog in pages with
 * `paging.cursors.after` and `paging.next` while more follow. Every request is recorded.
 */
export async function startFakeGraph(): Promise<FakeGraph> {
  const requests: Recorded[] = [];
  const wrote = new Set<string>();
  const fake = { catalog: [] as MetaTemplate[] };
  let n = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const body = raw ? JSON.parse(raw) : null;
      requests.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      const answer = (status: number, json: unknown) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(json));
      const url = new URL(req.url!, 'http://graph');
      if (req.method === 'GET' && url.pathname.endsWith('/message_templates')) {
        const limit = Math.max(1, Number(url.searchParams.get('limit') ?? 25));
        const start = Number(Buffer.from(url.searchParams.get('after') ?? '', 'base64').toString() || 0);
        const data = fake.catalog.slice(start, start + limit);
        const end = start + data.length;
        const after = Buffer.from(String(end)).toString('base64');
        const next = end < fake.catalog.length ? `${base}${url.pathname}?limit=${limit}&after=${after}` : undefined;
        return answer(200, {
          data,
          paging: { cursors: { before: Buffer.from(String(start)).toString('base64'), after }, ...(next && { next }) },
        });
      }
      if (req.method === 'POST' && url.pathname.startsWith('/engine/')) {
        // The linked channel's engine (engine_a's contract) on the same server, so that one
        // record keeps the order in which both ways received a ticket's messages.
        return answer(200, { key: { id: `ENGINE-${++n}`, fromMe: true }, status: 'PENDING' });
      }
      const marketing = url.pathname.endsWith('/marketing_messages');
      if (req.method === 'POST' && (url.pathname.endsWith('/messages') || marketing)) {
        // The Marketing Messages API takes templates only (its `type` is the constant "template").
        if (marketing && body?.type !== 'template') return answer(400, graphError(100, 'Param type must be template'));
        if (body?.type === 'template') {
          const t = fake.catalog.find((c) => c.name === body.template?.name && c.language === body.template?.language?.code);
          if (!t || t.status !== 'APPROVED')
            return answer(404, graphError(132001, '(#132001) Template name does not exist in the translation'));
        } else if (body?.status !== 'read' && !wrote.has(body?.to ?? body?.recipient)) {
          return answer(400, graphError(131047, 'Re-engagement message'));
        }
        const id = `wamid.FAKE-${++n}`;
        // A phone answers with its wa_id, a BSUID sent as `recipient` with its user_id (Meta's BSUID sends).
        const contact = body?.to ? { input: body.to, wa_id: body.to } : { input: body?.recipient, user_id: body?.recipient };
        return answer(200, { messaging_product: 'whatsapp', contacts: [contact], messages: [{ id }] });
      }
      return answer(404, graphError(100, 'Unknown path'));
    });
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const base = `http://127.0.0.1:${port}`;
  return {
    url: base,
    requests,
    get catalog() {
      return fake.catalog;
    },
    set catalog(list: MetaTemplate[]) {
      fake.catalog = list;
    },
    wrote: (number) => void wrote.add(number),
    sends: () => requests.filter((r) => r.method === 'POST' && r.url.endsWith('/messages') && !r.url.startsWith('/engine/')),
    marketingSends: () => requests.filter((r) => r.method === 'POST' && r.url.endsWith('/marketing_messages')),
    engineSends: () => requests.filter((r) => r.method === 'POST' && r.url.startsWith('/engine/')),
    catalogReads: () => requests.filter((r) => r.method === 'GET' && r.url.includes('/message_templates')),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
