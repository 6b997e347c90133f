import { createServer, type IncomingHttpHeaders } from 'node:http';
import { listenOnLoopback } from './loopback';

/** One request as a fake provider received it: the exact wire request a driver sent. */
export interface ProviderRequest {
  method: string;
  /** Path and query, as sent. */
  url: string;
  headers: IncomingHttpHeaders;
  /** The body parsed as JSON when it is JSON, else the raw text ('' when empty). */
  body: any;
  raw: string;
  /** Date.now() when the request arrived (whole). */
  receivedAt: number;
}

/** What the fake answers: a status and JSON body, 'hang' to never answer, 'stall' to stop mid-body. */
export type ProviderReply = { status: number; body?: unknown; headers?: Record<string, string> } | 'hang' | 'stall';

export interface FakeProvider {
  url: string;
  requests: ProviderRequest[];
  /** Requests whose client closed the connection before the answer was complete (a client timeout gave up on them). */
  hungUp: ProviderRequest[];
  /**
   * Resolves once `count` requests have been hung up on. The client's close reaches the fake a
   * moment after the client gave up, so a test waits for it rather than looking at once.
   */
  hangUps(count?: number): Promise<void>;
  /** Sets how the fake answers from now on. */
  answer(fn: (req: ProviderRequest) => ProviderReply): void;
  /** Forgets the recorded requests (and hang-ups) and restores the default answer. */
  reset(): void;
  close(): Promise<void>;
}

/**
 * A provider (engine server, Graph API, marketplace...) on loopback that records every request and
 * answers what the test says. Drivers and services are tested against it over real HTTP.
 */
export async function startFakeProvider(
  defaultReply: (req: ProviderRequest) => ProviderReply = () => ({ status: 200, body: {} }),
): Promise<FakeProvider> {
  const requests: ProviderRequest[] = [];
  const hungUp: ProviderRequest[] = [];
  let waiters: Array<{ count: number; resolve: () => void }> = [];
  const notify = () => {
    const ready = waiters.filter((w) => hungUp.length >= w.count);
    waiters = waiters.filter((w) => hungUp.length < w.count);
    ready.forEach((w) => w.resolve());
  };
  let reply = defaultReply;
  /** Bumped by reset: a hang-up of a request from before it (a previous test) is not recorded. */
  let generation = 0;
  const server = createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (raw += chunk));
    req.on('end', () => {
      let body: unknown = raw;
      try {
        body = raw ? JSON.parse(raw) : '';
      } catch {
        // not JSON: keep the text
      }
      const recorded: ProviderRequest = { method: req.method!, url: req.url!, headers: req.headers, body, raw, receivedAt: Date.now() };
      requests.push(recorded);
      const recordedIn = generation;
      res.once('close', () => {
        if (res.writableFinished || recordedIn !== generation) return;
        hungUp.push(recorded);
        notify();
      });
      const answer = reply(recorded);
      if (answer === 'hang') return;
      if (answer === 'stall') {
        res.writeHead(200, { 'content-type': 'application/json' }).write('{"partial":');
        return;
      }
      res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers }).end(JSON.stringify(answer.body ?? {}));
    });
  });
  const { url, close } = await listenOnLoopback(server);
  return {
    url,
    requests,
    hungUp,
    hangUps(count = 1) {
      if (hungUp.length >= count) return Promise.resolve();
      return new Promise<void>((resolve) => waiters.push({ count, resolve }));
    },
    answer(fn) {
      reply = fn;
    },
    reset() {
      requests.length = 0;
      hungUp.length = 0;
      generation++;
      reply = defaultReply;
    },
    close,
  };
}
