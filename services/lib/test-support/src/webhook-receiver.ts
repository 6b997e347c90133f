import { listenOnLoopback } from './loopback';
import { safeEqual } from '@convo/kit';
import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';

/** One request the receiver got, recorded when its body arrived (before it is answered). */
export interface ReceivedWebhook {
  path: string;
  headers: IncomingHttpHeaders;
  id: string;
  timestamp: string;
  signature: string;
  raw: string;
  body: any;
  receivedAt: number;
  /** The status answered; 0 while held open, or when the sender went away first. */
  answered: number;
}

export interface Answer {
  status: number;
  headers?: Record<string, string>;
}

export type Responder = (hook: ReceivedWebhook) => Answer | Promise<Answer>;

export interface WebhookReceiver {
  url: string;
  received: ReceivedWebhook[];
  /** webhook-ids that arrived while a request with the same id was still open: concurrent deliveries. */
  overlaps: string[];
  /** How every later request is answered (default 200); may return a promise to hold it open. */
  answer(responder: Responder): void;
  /** Requests answered 2xx, i.e. deliveries the sender will count as done. */
  delivered(): ReceivedWebhook[];
  waitFor(predicate: (all: ReceivedWebhook[]) => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

const ok: Responder = () => ({ status: 200 });

/**
 * A customer's webhook endpoint on loopback: records exactly what it receives (headers, raw body),
 * answers as told, and notices two requests with one webhook-id open at the same time.
 */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const overlaps: string[] = [];
  const open = new Map<string, number>();
  let responder = ok;

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const hook: ReceivedWebhook = {
        path: req.url ?? '',
        headers: req.headers,
        id: String(req.headers['webhook-id'] ?? ''),
        timestamp: String(req.headers['webhook-timestamp'] ?? ''),
        signature: String(req.headers['webhook-signature'] ?? ''),
        raw,
        body: raw ? JSON.parse(raw) : null,
        receivedAt: Date.now(),
        answered: 0,
      };
      received.push(hook);
      if (open.get(hook.id)) overlaps.push(hook.id);
      open.set(hook.id, (open.get(hook.id) ?? 0) + 1);
      let closed = false;
      const done = () => {
        if (closed) return;
        closed = true;
        open.set(hook.id, open.get(hook.id)! - 1);
      };
      res.once('close', done);
      Promise.resolve(responder(hook)).then(
        (answer) => reply(res, hook, answer, done),
        () => reply(res, hook, { status: 500 }, done),
      );
    });
  });
  server.keepAliveTimeout = 1000;
  const { url, close } = await listenOnLoopback(server);

  return {
    url,
    received,
    overlaps,
    answer: (r) => (responder = r),
    delivered: () => received.filter((h) => h.answered >= 200 && h.answered < 300),
    async waitFor(predicate, timeoutMs = 30_000) {
      const until = Date.now() + timeoutMs;
      while (!predicate(received)) {
        if (Date.now() > until) throw new Error(`webhook receiver: condition not met within ${timeoutMs} ms (${received.length} received)`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    close,
  };
}

function reply(res: ServerResponse, hook: ReceivedWebhook, answer: Answer, done: () => void) {
  // The sender may have gone (killed, timed out) while the request was held.
  if (res.destroyed || res.writableEnded) return done();
  hook.answered = answer.status;
  res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers }).end('{}');
  done();
}

/**
 * A receiver's check of the Standard Webhooks signature, written from the specification with
 * node:crypto (independently of the relay's signing code): some `v1,<base64>` entry of the header
 * must equal HMAC-SHA256(base64-decoded secret, `<id>.<timestamp>.<raw body>`).
 */
export function verifyStandardWebhook(secret: string, hook: Pick<ReceivedWebhook, 'id' | 'timestamp' | 'signature' | 'raw'>): boolean {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${hook.id}.${hook.timestamp}.${hook.raw}`).digest();
  return hook.signature.split(' ').some((entry) => {
    const [version, sig] = entry.split(',');
    const given = Buffer.from(sig ?? '', 'base64');
    return version === 'v1' && safeEqual(given, expected);
  });
}
