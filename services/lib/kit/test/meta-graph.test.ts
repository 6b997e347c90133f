import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { DEFAULT_META_GRAPH_URL, META_GRAPH_VERSION, MetaGraphClient, MetaGraphError } from '../src/meta-graph';

/** A fake Graph API on loopback: each test sets how it answers; every request is recorded. */
interface Seen {
  method: string;
  url: string;
  authorization?: string;
  body: string;
}
let answer: (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void;
const seen: Seen[] = [];
const server = http.createServer((req, res) => {
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    seen.push({ method: req.method!, url: req.url!, authorization: req.headers.authorization, body });
    answer(req, res, body);
  });
});
let base: string;

const json = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
};
const envelope = (code: number, extra: Record<string, unknown> = {}) => ({
  error: { message: `(#${code}) refused`, type: 'OAuthException', code, fbtrace_id: 'AbC123', ...extra },
});
const failureOf = async (p: Promise<unknown>): Promise<MetaGraphError> => {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(MetaGraphError);
  return err as MetaGraphError;
};

beforeAll(async () => {
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((ok) => server.close(() => ok())));
beforeEach(() => {
  seen.length = 0;
});

describe('META_GRAPH_VERSION', () => {
  // Meta's version table: v25.0 is supported until 2028-07-29 (v21.0, the earlier default, stops 2027-01-21).
  it('is the default base of every Meta call, a version Meta still supports', () => {
    expect(DEFAULT_META_GRAPH_URL).toBe(`https://graph.facebook.com/${META_GRAPH_VERSION}`);
    expect(Number(META_GRAPH_VERSION.replace(/^v/, ''))).toBeGreaterThanOrEqual(25);
  });
});

describe('MetaGraphClient', () => {
  it('sends the token as a bearer header, JSON bodies, and joins base, version and path', async () => {
    answer = (_req, res) => json(res, 200, { id: '42' });
    const graph = new MetaGraphClient({ baseUrl: `${base}/`, version: META_GRAPH_VERSION, timeoutMs: 2000 });
    await expect(graph.post('123/messages', 'tok', { a: 1 })).resolves.toEqual({ id: '42' });
    await expect(graph.delete('/123/personas', 'tok')).resolves.toEqual({ id: '42' });
    expect(seen).toEqual([
      { method: 'POST', url: `/${META_GRAPH_VERSION}/123/messages`, authorization: 'Bearer tok', body: '{"a":1}' },
      { method: 'DELETE', url: `/${META_GRAPH_VERSION}/123/personas`, authorization: 'Bearer tok', body: '' },
    ]);
  });

  it("reads Meta's error envelope into a typed error", async () => {
    answer = (_req, res) =>
      json(
        res,
        400,
        envelope(131047, { error_subcode: 2494010, error_user_title: 'T', error_user_msg: 'U', error_data: { details: 'more' } }),
      );
    const err = await failureOf(new MetaGraphClient({ baseUrl: base, timeoutMs: 2000 }).get('/x?fields=a', 'tok'));
    expect(err).toMatchObject({
      kind: 'refused',
      status: 400,
      code: 131047,
      subcode: 2494010,
      type: 'OAuthException',
      fbtraceId: 'AbC123',
      userTitle: 'T',
      userMessage: 'U',
      details: 'more',
      reason: '(#131047) refused',
      rateLimited: false,
      retryable: false,
    });
    expect(err.message).toBe('Meta Graph GET /x: HTTP 400: (#131047) refused');
  });

  it.each([4, 17, 32, 613, 80004, 130429, 131056])(
    'reads the throttling code %i as a rate limit, whatever the HTTP status',
    async (code) => {
      answer = (_req, res) => json(res, 400, envelope(code));
      const err = await failureOf(new MetaGraphClient({ baseUrl: base, timeoutMs: 2000 }).get('/x', 'tok'));
      expect(err).toMatchObject({ rateLimited: true, retryable: true });
    },
  );

  it.each([
    [400, 190, false],
    [400, 100, false],
    [400, 2, true],
    [500, 1, true],
    [503, undefined, true],
  ])('HTTP %i with code %p is retryable: %p', async (status, code, retryable) => {
    answer = (_req, res) => (code === undefined ? json(res, status, 'down') : json(res, status, envelope(code)));
    const err = await failureOf(new MetaGraphClient({ baseUrl: base, timeoutMs: 2000 }).get('/x', 'tok'));
    expect(err).toMatchObject({ kind: 'refused', status, rateLimited: false, retryable });
  });

  it('keeps the raw text of an answer without an envelope, and the Retry-After of a 429', async () => {
    answer = (_req, res) => {
      res.writeHead(429, { 'retry-after': '7' });
      res.end('slow down');
    };
    const err = await failureOf(new MetaGraphClient({ baseUrl: base, timeoutMs: 2000 }).get('/x', 'tok'));
    expect(err).toMatchObject({ reason: 'slow down', body: 'slow down', retryAfter: '7', retryable: true, code: undefined });
  });

  it('follows no redirect', async () => {
    answer = (_req, res) => {
      res.writeHead(302, { location: `${base}/elsewhere` });
      res.end();
    };
    const err = await failureOf(new MetaGraphClient({ baseUrl: base, timeoutMs: 2000 }).get('/x', 'tok'));
    expect(err).toMatchObject({ kind: 'refused', status: 302, reason: 'no reason given' });
    expect(seen.map((s) => s.url)).toEqual(['/x']);
  });

  it('times out a server that stalls after its headers', async () => {
    answer = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"partial":');
      setTimeout(() => res.end('1}'), 1000).unref();
    };
    const err = await failureOf(new MetaGraphClient({ baseUrl: base, timeoutMs: 150 }).get('/x', 'tok'));
    expect(err).toMatchObject({ kind: 'timeout', reason: 'no answer within 150 ms', retryable: true, status: undefined });
  });

  it('reports an unreachable server', async () => {
    const closed = http.createServer();
    await new Promise<void>((ok) => closed.listen(0, '127.0.0.1', ok));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((ok) => closed.close(() => ok()));
    const err = await failureOf(new MetaGraphClient({ baseUrl: `http://127.0.0.1:${port}`, timeoutMs: 2000 }).get('/x', 'tok'));
    expect(err).toMatchObject({ kind: 'unreachable', retryable: true });
    expect(err.reason).toMatch(/ECONNREFUSED/);
  });

  it('pages by the after cursor while Meta says there is a next page, up to maxPages', async () => {
    answer = (req, res) => {
      const after = new URL(req.url!, base).searchParams.get('after') ?? '';
      const n = after ? Number(after.slice(1)) : 0;
      json(res, 200, {
        data: [n],
        paging: { cursors: { after: `c${n + 1}` }, ...(n < 2 && { next: 'https://graph.example/next?access_token=secret' }) },
      });
    };
    const graph = new MetaGraphClient({ baseUrl: base, timeoutMs: 2000 });
    const read = async (maxPages: number) => {
      const data: unknown[] = [];
      for await (const page of graph.pages('/w/templates', 'tok', { maxPages, query: { limit: '2' } }))
        data.push(...(page!.data as unknown[]));
      return data;
    };
    await expect(read(10)).resolves.toEqual([0, 1, 2]);
    expect(seen.map((s) => s.url)).toEqual(['/w/templates?limit=2', '/w/templates?limit=2&after=c1', '/w/templates?limit=2&after=c2']);
    seen.length = 0;
    await expect(read(2)).resolves.toEqual([0, 1]);
    expect(seen).toHaveLength(2);
  });

  it('stops paging when the cursor does not move', async () => {
    answer = (_req, res) => json(res, 200, { data: [1], paging: { cursors: { after: 'same' }, next: 'x' } });
    const pages = [];
    for await (const page of new MetaGraphClient({ baseUrl: base, timeoutMs: 2000 }).pages('/p', 'tok', { maxPages: 10 })) pages.push(page);
    expect(pages).toHaveLength(2);
  });
});
