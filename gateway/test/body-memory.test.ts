import { metricsText } from '@convo/kit';
import { createHash, randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { Readable } from 'node:stream';
import Fastify, { type FastifyInstance } from 'fastify';
import { installBodyBudget } from '../src/body-budget';
import { installErrorHandler } from '../src/errors';
import { SendMessageBody } from '../src/schemas/message.schemas';
import { decodedFileOf, installMediaJsonParser } from '../src/validation/base64-stream';
import { boundedValidatorCompiler } from '../src/validation/compiler';
import { installBoundedJsonParser } from '../src/validation/json-parser';

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
/** A body handed over in pieces of `size` bytes, as a slow client's packets arrive. */
const pieces = (text: string, size: number) => {
  const all = Buffer.from(text);
  const out: Buffer[] = [];
  for (let i = 0; i < all.length; i += size) out.push(all.subarray(i, i + size));
  return Readable.from(out);
};

/** The media routes' JSON: base64Data decoded while the body streams in, never held as text. */
describe('streamed base64 on media routes', () => {
  const MAX = 64 * 1024;
  let app: FastifyInstance;
  beforeAll(async () => {
    app = Fastify({ bodyLimit: 1024 * 1024 });
    app.setValidatorCompiler(boundedValidatorCompiler());
    installBoundedJsonParser(app);
    installErrorHandler(app);
    await app.register(async (scope) => {
      installMediaJsonParser(scope, MAX);
      scope.post('/media', { config: { media: true }, schema: { body: SendMessageBody } }, async (req) => {
        const file = decodedFileOf(req.body as object);
        return { body: req.body, size: file?.length, sha: file && sha(file) };
      });
      scope.post('/plain', { schema: { body: SendMessageBody } }, async (req) => ({
        body: req.body,
        streamed: decodedFileOf(req.body as object) !== undefined,
      }));
    });
  });
  afterAll(() => app.close());
  const post = (url: string, payload: string | Readable, headers: Record<string, string> = {}) =>
    app.inject({ method: 'POST', url, payload, headers: { 'content-type': 'application/json', ...headers } });

  it('decodes a file split across many small chunks, the other fields parsed as usual', async () => {
    const file = randomBytes(40_000);
    const text = JSON.stringify({
      ticketId: 7,
      body: 'x "quoted" \\ base64Data',
      base64Data: file.toString('base64'),
      mimeType: 'application/pdf',
      fileName: 'f',
      nested: { base64Data: 'kept' },
    });
    for (const size of [1, 7, 4096]) {
      const res = await post('/media', pieces(text, size), { 'content-length': String(Buffer.byteLength(text)) });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({
        size: file.length,
        sha: sha(file),
        body: { ticketId: 7, body: 'x "quoted" \\ base64Data', base64Data: 'AAAA', mimeType: 'application/pdf' },
      });
    }
  });

  it('reads escaped slashes, escaped line breaks and a data URL prefix as the whole-body path did', async () => {
    const file = randomBytes(3000);
    const b64 = file.toString('base64');
    const wrapped = `data:application/pdf;base64,${b64.replace(/(.{76})/g, '$1\\r\\n').replace(/\//g, '\\/')}`;
    const res = await post('/media', `{"ticketId":1,"base64Data":"${wrapped}","mimeType":"application/pdf","fileName":"f"}`);
    expect(res.statusCode).toBe(200);
    expect(res.json().sha).toBe(sha(file));
  });

  it.each([
    ['a character outside the alphabet', 'QUJD*EVG'],
    ['a length not a multiple of 4', 'QUJDR'],
    ['padding in the middle', 'QQ==QUJD'],
    ['a unicode escape', 'QUJD\\u0041AAA'],
    ['an empty string', ''],
  ])('refuses %s as the schema did: 400 naming base64Data', async (_what, value) => {
    const res = await post('/media', `{"ticketId":1,"base64Data":"${value}","mimeType":"application/pdf","fileName":"f"}`);
    expect(res.statusCode).toBe(400);
    expect(res.json().details.map((d: { field: string }) => d.field)).toContain('base64Data');
  });

  it('answers 413 once the decoded file passes the limit', async () => {
    const res = await post(
      '/media',
      JSON.stringify({ ticketId: 1, base64Data: randomBytes(MAX + 10).toString('base64'), mimeType: 'application/pdf', fileName: 'f' }),
    );
    expect(res.statusCode).toBe(413);
    expect(res.json().error).toBe('ERR_PAYLOAD_TOO_LARGE');
  });

  it('leaves malformed JSON and routes without media to the usual parser', async () => {
    expect((await post('/media', '{"ticketId":1,"base64Data":"QUJD')).statusCode).toBe(400);
    expect((await post('/media', '{"ticketId":1,"base64Data":"QUJD",')).statusCode).toBe(400);
    const plain = await post('/plain', '{"ticketId":1,"base64Data":"QUJD","mimeType":"text/plain","fileName":"f"}');
    expect(plain.json()).toMatchObject({ streamed: false, body: { base64Data: 'QUJD' } });
    const infinite = await post('/media', '{"ticketId":1,"body":"x","extra":[1e400]}');
    expect(infinite.statusCode).toBe(400);
  });
});

/** One process-wide budget of request body held at once; past it, 503 ERR_BUSY at once. */
describe('body budget', () => {
  let app: FastifyInstance;
  let url: string;
  const gates: Array<() => void> = [];
  beforeAll(async () => {
    app = Fastify({ forceCloseConnections: true });
    installErrorHandler(app);
    installBodyBudget(app, 1000);
    app.addContentTypeParser('application/octet-stream', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
    app.post('/hold', async (req) => {
      await new Promise<void>((r) => gates.push(r));
      return { success: true, bytes: (req.body as Buffer).length };
    });
    url = await app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(() => app.close());
  const send = (bytes: number) =>
    fetch(`${url}/hold`, {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream' },
      body: Buffer.alloc(bytes),
      signal: AbortSignal.timeout(10_000),
    });
  const until = async (cond: () => boolean) => {
    for (let i = 0; i < 200 && !cond(); i++) await new Promise((r) => setTimeout(r, 10));
  };

  it('refuses at once with 503 ERR_BUSY and Retry-After what does not fit, and admits again once bodies are given back', async () => {
    const first = send(800);
    await until(() => gates.length === 1);
    const refused = await send(300);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('2');
    expect((await refused.json()).error).toBe('ERR_BUSY');
    const metrics = await metricsText();
    expect(metrics).toMatch(/^convo_gateway_body_busy_total 1$/m);
    expect(metrics).toMatch(/^convo_gateway_body_bytes_held 800$/m);
    // What still fits is admitted.
    const small = send(150);
    await until(() => gates.length === 2);
    gates.shift()!();
    gates.shift()!();
    expect((await first).status).toBe(200);
    expect((await small).status).toBe(200);
    // Given back: the larger one fits now, and so does a lone body above the whole budget.
    const again = send(300);
    await until(() => gates.length === 1);
    gates.shift()!();
    expect((await again).status).toBe(200);
    const lone = send(5000);
    await until(() => gates.length === 1);
    gates.shift()!();
    expect(await (await lone).json()).toEqual({ success: true, bytes: 5000 });
  });

  it('gives the bytes back when the client goes away', async () => {
    const controller = new AbortController();
    const gone = fetch(`${url}/hold`, {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream' },
      body: Buffer.alloc(900),
      signal: controller.signal,
    }).catch(() => undefined);
    await until(() => gates.length === 1);
    controller.abort();
    await gone;
    await new Promise((r) => setTimeout(r, 100));
    const next = send(900);
    await until(() => gates.length === 2);
    expect(gates).toHaveLength(2);
    gates.splice(0).forEach((open) => open());
    expect((await next).status).toBe(200);
  });
});

describe('streamed base64: keys', () => {
  it('takes only the top-level base64Data, whatever the keys around it', async () => {
    const app = Fastify();
    app.setValidatorCompiler(boundedValidatorCompiler());
    installBoundedJsonParser(app);
    installErrorHandler(app);
    await app.register(async (scope) => {
      installMediaJsonParser(scope, 1024);
      scope.post('/media', { config: { media: true } }, async (req) => ({
        body: req.body,
        file: decodedFileOf(req.body as object)?.toString(),
      }));
    });
    const post = async (payload: string) =>
      (await app.inject({ method: 'POST', url: '/media', payload, headers: { 'content-type': 'application/json' } })).json();
    expect(
      await post(`{"${'k'.repeat(50_000)}":1,"base64Data64":"x","base64Dat":"y","a":{"base64Data":"QUJD"},"base64Data" : "QUJD"}`),
    ).toEqual({
      body: { ['k'.repeat(50_000)]: 1, base64Data64: 'x', base64Dat: 'y', a: { base64Data: 'QUJD' }, base64Data: 'AAAA' },
      file: 'ABC',
    });
    expect(await post('{"base64Data":null,"b":["base64Data","QUJD"]}')).toEqual({ body: { base64Data: null, b: ['base64Data', 'QUJD'] } });
    await app.close();
  });
});

/** Clients that ask `Expect: 100-continue` send their body only once it is admitted. */
describe('body budget and Expect: 100-continue', () => {
  let app: FastifyInstance;
  let port: number;
  const gates: Array<() => void> = [];
  beforeAll(async () => {
    app = Fastify({ forceCloseConnections: true });
    installErrorHandler(app);
    installBodyBudget(app, 1000);
    app.addContentTypeParser('application/octet-stream', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
    app.post('/hold', async (req) => {
      await new Promise<void>((r) => gates.push(r));
      return { success: true, bytes: (req.body as Buffer).length };
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.server.address() as { port: number }).port;
  });
  afterAll(() => app.close());

  /** A POST that waits for `100 Continue` before sending its body; says whether it was asked for it. */
  const expecting = (bytes: number) =>
    new Promise<{ status: number; continued: boolean; body: string }>((resolve, reject) => {
      let continued = false;
      const req = request({
        port,
        host: '127.0.0.1',
        path: '/hold',
        method: 'POST',
        headers: { 'content-type': 'application/octet-stream', 'content-length': bytes, expect: '100-continue' },
      });
      req.on('continue', () => {
        continued = true;
        req.end(Buffer.alloc(bytes));
      });
      req.on('response', (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, continued, body });
          // Refused: the body is never sent, and the connection is given up.
          if (!continued) req.destroy();
        });
      });
      req.on('error', (err) => (continued ? reject(err) : undefined));
      req.flushHeaders();
    });

  it('answers 503 before the body is sent when it does not fit, 100 Continue when it does', async () => {
    const first = expecting(800);
    for (let i = 0; i < 200 && gates.length < 1; i++) await new Promise((r) => setTimeout(r, 10));
    const refused = await expecting(300);
    expect({ status: refused.status, continued: refused.continued, error: JSON.parse(refused.body).error }).toEqual({
      status: 503,
      continued: false,
      error: 'ERR_BUSY',
    });
    gates.shift()!();
    expect(await first).toMatchObject({ status: 200, continued: true });
  });
});
