import * as grpc from '@grpc/grpc-js';
import { closeAllClients, createClient, DomainError, startService, type RunningService, type ServiceClient } from '@convo/kit';
import { startDatabase, type Database } from '@convo/dev-db';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { channelEnginesService } from '../server';
import type { Outbound } from './driver';
import { EngineADriver } from './engine-a.driver';

// ---- a fake engine_a server ----------------------------------------------------------------

interface EngineRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: any;
}
/** What the fake answers: a status and JSON body, 'hang' to never answer, 'stall' to stop mid-body. */
type EngineReply = { status: number; body?: unknown } | 'hang' | 'stall';

const acceptWithKey = (req: EngineRequest): EngineReply => ({ status: 200, body: { key: { id: `WA-${req.body.options.messageId}` } } });

async function startFakeEngine() {
  const requests: EngineRequest[] = [];
  let reply: (req: EngineRequest) => EngineReply = acceptWithKey;
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => (raw += chunk));
    req.on('end', () => {
      const recorded = { method: req.method!, url: req.url!, headers: req.headers, body: raw ? JSON.parse(raw) : null };
      requests.push(recorded);
      const answer = reply(recorded);
      if (answer === 'stall') res.writeHead(200, { 'content-type': 'application/json' }).write('{"key":');
      else if (answer !== 'hang') res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body ?? {}));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    answer(fn: (req: EngineRequest) => EngineReply) {
      reply = fn;
    },
    reset() {
      requests.length = 0;
      reply = acceptWithKey;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

// ---- helpers -------------------------------------------------------------------------------

const target = (over: Partial<Outbound['channel']> = {}): Outbound['channel'] => ({
  id: 1,
  tenantId: 1,
  type: 'engine_a',
  engineUrl: '',
  engineToken: 'engine-secret',
  tokenApi: '',
  bmToken: '',
  pageId: '',
  pageToken: '',
  ...over,
});
const text = (body: string) => ({ text: body, mediaUrl: '', mimeType: '', fileName: '' });

/** The DomainError a send must fail with. */
async function sendError(send: Promise<unknown>): Promise<DomainError> {
  try {
    await send;
  } catch (err) {
    expect(err).toBeInstanceOf(DomainError);
    return err as DomainError;
  }
  throw new Error('expected the send to fail, it succeeded');
}

let engine: Awaited<ReturnType<typeof startFakeEngine>>;

beforeAll(async () => {
  engine = await startFakeEngine();
});
afterAll(() => engine.close());
beforeEach(() => engine.reset());

// ---- EngineADriver.checkNumber -------------------------------------------------------------

describe('EngineADriver.checkNumber', () => {
  const driver = new EngineADriver({ timeoutMs: 300, engineUrl: () => '' });
  const check = () => driver.checkNumber(target({ engineUrl: engine.url }), '5511987654321');

  it("asks Baileys' onWhatsApp through POST /contacts/check and reports the answer", async () => {
    engine.answer(() => ({ status: 200, body: [{ jid: '5511987654321@s.whatsapp.net', exists: true }] }));
    expect(await check()).toEqual({ exists: true, networkId: '5511987654321@s.whatsapp.net' });
    expect(engine.requests[0]).toMatchObject({
      method: 'POST',
      url: '/contacts/check',
      headers: { authorization: 'Bearer engine-secret' },
      body: { jids: ['5511987654321@s.whatsapp.net'] },
    });
  });

  it('reports a number that is not on the network', async () => {
    engine.answer(() => ({ status: 200, body: [{ jid: '5511987654321@s.whatsapp.net', exists: false }] }));
    expect((await check()).exists).toBe(false);
  });

  it('refuses an answer without exists as a provider failure', async () => {
    engine.answer(() => ({ status: 200, body: { ok: true } }));
    expect((await sendError(check())).code).toBe('ERR_PROVIDER_FAILED');
  });
});

// ---- EngineADriver -------------------------------------------------------------------------

describe('EngineADriver', () => {
  const TIMEOUT_MS = 300;
  const driver = new EngineADriver({ timeoutMs: TIMEOUT_MS, engineUrl: () => '' });
  const send = (over: Partial<Outbound> = {}) =>
    driver.send({ channel: target({ engineUrl: engine.url }), to: '5511987654321', content: text('Hello!'), reference: 'msg-1', ...over });

  it("sends Baileys' sendMessage arguments to POST /messages with the channel's bearer token", async () => {
    await send();

    expect(engine.requests).toHaveLength(1);
    const [req] = engine.requests;
    expect(req.method).toBe('POST');
    expect(req.url).toBe('/messages');
    expect(req.headers.authorization).toBe('Bearer engine-secret');
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.body).toEqual({ jid: '5511987654321@s.whatsapp.net', content: { text: 'Hello!' }, options: { messageId: 'msg-1' } });
  });

  it('tolerates a trailing slash on the engine URL', async () => {
    await send({ channel: target({ engineUrl: `${engine.url}//` }) });
    expect(engine.requests.map((r) => r.url)).toEqual(['/messages']);
  });

  it('sends no authorization header for a channel without engine token', async () => {
    await send({ channel: target({ engineUrl: engine.url, engineToken: '' }) });
    expect(engine.requests[0].headers.authorization).toBeUndefined();
  });

  it("returns the engine's key.id as the provider message id", async () => {
    engine.answer(() => ({ status: 200, body: { key: { id: '3EB0C767D26A1D8B', remoteJid: 'x' }, status: 1 } }));
    await expect(send()).resolves.toEqual({ providerMessageId: '3EB0C767D26A1D8B' });
  });

  it("fails with ERR_PROVIDER_FAILED carrying the engine's reason on a 500", async () => {
    engine.answer(() => ({ status: 500, body: { message: 'session closed' } }));
    const err = await sendError(send());

    expect(err.code).toBe('ERR_PROVIDER_FAILED');
    expect(err.message).toContain('session closed');
    expect(err.message).toContain('500');
  });

  it('fails with ERR_PROVIDER_FAILED within about the timeout when the engine never answers', async () => {
    engine.answer(() => 'hang');
    const started = Date.now();
    const err = await sendError(send());
    const elapsed = Date.now() - started;

    expect(err.code).toBe('ERR_PROVIDER_FAILED');
    expect(err.message).toMatch(/no answer within 300 ms/);
    expect(elapsed).toBeGreaterThanOrEqual(TIMEOUT_MS - 20);
    expect(elapsed).toBeLessThan(TIMEOUT_MS + 1500);
  });

  it('fails with ERR_PROVIDER_FAILED within about the timeout when the engine stalls mid-answer', async () => {
    engine.answer(() => 'stall');
    const started = Date.now();
    const err = await sendError(send());

    expect(err.code).toBe('ERR_PROVIDER_FAILED');
    expect(err.message).toMatch(/no answer within 300 ms/);
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS + 1500);
  });

  it.each([
    ['an empty object', {}],
    ['a key without id', { key: { remoteJid: 'x' } }],
    ['an empty id', { key: { id: '' } }],
  ])('fails with ERR_PROVIDER_FAILED on a 2xx with %s', async (_label, body) => {
    engine.answer(() => ({ status: 200, body }));
    const err = await sendError(send());
    expect(err.code).toBe('ERR_PROVIDER_FAILED');
    expect(err.message).toContain('key.id');
  });

  it('fails with ERR_PROVIDER_FAILED when the engine is unreachable', async () => {
    const err = await sendError(send({ channel: target({ engineUrl: 'http://127.0.0.1:1' }) }));
    expect(err.code).toBe('ERR_PROVIDER_FAILED');
    expect(err.message).toContain('unreachable');
  });

  it('fails with ERR_PROVIDER_FAILED, without any request, when no engine URL is configured', async () => {
    const err = await sendError(send({ channel: target({ engineUrl: '' }) }));
    expect(err.code).toBe('ERR_PROVIDER_FAILED');
    expect(err.message).toContain('no engine URL');
    expect(engine.requests).toEqual([]);
  });

  it("falls back to the configured engine URL of its kind when the channel has none", async () => {
    const configured = new EngineADriver({ timeoutMs: TIMEOUT_MS, engineUrl: (kind) => (kind === 'engine_a' ? engine.url : '') });
    await configured.send({ channel: target(), to: '5511987654321', content: text('via env'), reference: 'msg-2' });
    expect(engine.requests.map((r) => r.body.content)).toEqual([{ text: 'via env' }]);
  });

  it('sends an image as content.image.url with the text as caption', async () => {
    await send({ content: { text: 'Look', mediaUrl: 'https://cdn.example.com/cat.png', mimeType: 'image/png', fileName: 'cat.png' } });
    expect(engine.requests[0].body.content).toEqual({ image: { url: 'https://cdn.example.com/cat.png' }, caption: 'Look', mimetype: 'image/png' });
  });

  it('sends a PDF as a document with its file name', async () => {
    await send({ content: { text: '', mediaUrl: 'https://cdn.example.com/a.pdf', mimeType: 'application/pdf', fileName: 'a.pdf' } });
    expect(engine.requests[0].body.content).toEqual({
      document: { url: 'https://cdn.example.com/a.pdf' },
      mimetype: 'application/pdf',
      fileName: 'a.pdf',
    });
  });
});

// ---- through the started service -----------------------------------------------------------

describe('Deliver over gRPC', () => {
  let database: Database;
  let svc: RunningService<unknown>;
  let client: ServiceClient<'channelEngines'>;
  let lastChannel = 100;

  beforeAll(async () => {
    database = await startDatabase({ name: 'channel-engines-test' });
    svc = await startService(channelEnginesService, {
      MONGODB_URI: database.uri,
      GRPC_PORT: '0',
      GRAPHQL_PORT: '0',
      SUPER_ADMIN_TOKEN: 'x'.repeat(24),
      LOG_LEVEL: 'silent',
      PROVIDER_TIMEOUT_MS: '1000',
    });
    client = createClient('channelEngines', `127.0.0.1:${svc.grpcPort}`);
  });

  afterAll(async () => {
    closeAllClients();
    await svc?.stop();
    await database?.stop();
  });

  const deliver = (channelId: number) =>
    client.Deliver({ channel: target({ id: channelId, tenantId: 9, engineUrl: engine.url }), to: '5511987654321', content: { text: 'Hi' }, reference: `ref-${channelId}` });
  const deliveriesOf = (channelId: number) => svc.db.collection('deliveries').find({ channelId }).toArray();

  it('lists the engine_a driver', async () => {
    await expect(client.ListDrivers({})).resolves.toEqual({ kinds: ['engine_a'] });
  });

  it('delivers and records a successful delivery', async () => {
    const channelId = ++lastChannel;
    const res = await deliver(channelId);

    expect(res).toEqual({ providerMessageId: `WA-ref-${channelId}`, driver: 'engine_a' });
    expect(engine.requests).toHaveLength(1);
    expect(await deliveriesOf(channelId)).toEqual([
      expect.objectContaining({ tenantId: 9, driver: 'engine_a', to: '5511987654321', ok: true, error: '', providerMessageId: `WA-ref-${channelId}` }),
    ]);
  });

  it('answers UNAVAILABLE with ERR_PROVIDER_FAILED and records the failed delivery with its reason', async () => {
    const channelId = ++lastChannel;
    engine.answer(() => ({ status: 500, body: { message: 'session closed' } }));
    const err = await deliver(channelId).then(
      () => {
        throw new Error('expected Deliver to fail');
      },
      (e: grpc.ServiceError) => e,
    );

    expect(err.code).toBe(grpc.status.UNAVAILABLE);
    expect(err.metadata.get('err-code')).toEqual(['ERR_PROVIDER_FAILED']);
    expect(err.details).toContain('session closed');
    const [delivery, ...more] = await deliveriesOf(channelId);
    expect(more).toEqual([]);
    expect(delivery).toMatchObject({ ok: false, providerMessageId: '' });
    expect(delivery.error).toContain('session closed');
  });

  it('refuses a channel kind without driver, sending nothing', async () => {
    const err = await client
      .Deliver({ channel: target({ type: 'engine_z', engineUrl: engine.url }), to: '5511987654321', content: { text: 'Hi' } })
      .catch((e: grpc.ServiceError) => e);
    expect(err).toMatchObject({ code: grpc.status.UNAVAILABLE });
    expect((err as grpc.ServiceError).metadata.get('err-code')).toEqual(['ERR_PROVIDER_FAILED']);
    expect(engine.requests).toEqual([]);
  });
});
