import { startFakeProvider, startServiceForTest, type FakeProvider, type ProviderReply, type TestService } from '@convo/test-support';
import { channelEnginesService } from '../../src/spec';
import { channelOf, contentOf, failure, interactiveContent, settingsWith, syncFailure, deliveryRecords } from '../support/driver-fixtures';
import type { DriverSettings, Outbound } from '../../src/drivers/driver';
import { EngineDDriver } from '../../src/drivers/engine-d.driver';
import { EngineEDriver } from '../../src/drivers/engine-e.driver';
import { EngineFDriver } from '../../src/drivers/engine-f.driver';
import { EngineGDriver } from '../../src/drivers/engine-g.driver';
import { EngineHDriver } from '../../src/drivers/engine-h.driver';
import type { RestEngineDriver } from '../../src/drivers/rest-engine';
import { WhatsappDriver } from '../../src/drivers/whatsapp.driver';

// What the six REST engine drivers share, run against each: every row is one engine with the
// path its URL needs and the success answer its server gives (the id the driver must read back).

interface Engine {
  kind: string;
  make: (settings: DriverSettings) => RestEngineDriver;
  /** What follows the fake server's address in an engine URL: the session name, the Z-API instance path, or nothing. */
  path: string;
  accepted: (id: string) => unknown;
}

const engines: Engine[] = [
  {
    kind: 'engine_d',
    make: (s) => new EngineDDriver(s),
    path: '',
    accepted: (id) => ({ code: 200, data: { Details: 'Sent', Id: id, Timestamp: 1718000000 }, success: true }),
  },
  {
    kind: 'engine_e',
    make: (s) => new EngineEDriver(s),
    path: '/main',
    accepted: (id) => ({ status: 'success', response: [{ id }], mapper: 'return' }),
  },
  {
    kind: 'engine_f',
    make: (s) => new EngineFDriver(s),
    path: '/instances/3C01/token/T0K',
    accepted: (id) => ({ zaapId: `Z-${id}`, messageId: id, id }),
  },
  { kind: 'engine_g', make: (s) => new EngineGDriver(s), path: '/main', accepted: (id) => ({ id }) },
  {
    kind: 'engine_h',
    make: (s) => new EngineHDriver(s),
    path: '/main',
    accepted: (id) => ({ key: { remoteJid: '5511987654321@s.whatsapp.net', fromMe: true, id }, status: 'PENDING' }),
  },
  {
    kind: 'whatsapp',
    make: (s) => new WhatsappDriver(s),
    path: '/main',
    accepted: (id) => ({ success: true, message: { id: { fromMe: true, _serialized: id } } }),
  },
];

const TIMEOUT_MS = 2_000;
let engine: FakeProvider;
let count = 0;
/** Numbers the messages a fake engine accepts: M1, M2, ... */
const accepting = (accepted: Engine['accepted']) => (): ProviderReply => ({ status: 200, body: accepted(`M${++count}`) });

beforeAll(async () => {
  engine = await startFakeProvider();
});
afterAll(() => engine.close());
beforeEach(() => {
  engine.reset();
  count = 0;
});

describe.each(engines)('$kind (shared engine behaviour)', ({ kind, make, path, accepted }) => {
  const driver = make(settingsWith(TIMEOUT_MS));
  const channel = (over: Partial<Outbound['channel']> = {}) => channelOf(kind, { engineUrl: `${engine.url}${path}`, ...over });
  const send = (content: Outbound['content'], ch = channel()) =>
    driver.send({ channel: ch, to: '5511987654321', content, reference: 'msg-1' });

  beforeEach(() => engine.answer(accepting(accepted)));

  it('answers the id the engine gave the message', async () => {
    await expect(send(contentOf({ text: 'Hello!' }))).resolves.toEqual({ providerMessageId: 'M1' });
    expect(engine.requests).toHaveLength(1);
  });

  it('sends an audio and then its text as a second message (WhatsApp audio has no caption), answering the audio id', async () => {
    const audio = contentOf({ text: 'Listen', mediaUrl: 'https://media.example/v.ogg', mimeType: 'audio/ogg', fileName: 'v.ogg' });
    await expect(send(audio)).resolves.toEqual({ providerMessageId: 'M1' });
    expect(engine.requests).toHaveLength(2);
    expect(JSON.stringify(engine.requests[0].body)).toContain('https://media.example/v.ogg');
    expect(JSON.stringify(engine.requests[1].body)).toContain('Listen');
  });

  it('reports a refused follow-up text as a failure that says the audio was delivered', async () => {
    engine.answer(() => (count++ === 0 ? { status: 200, body: accepted('M1') } : { status: 500, body: { message: 'rate limited' } }));
    const err = await failure(send(contentOf({ text: 'Listen', mediaUrl: 'https://media.example/v.ogg', mimeType: 'audio/ogg' })));
    expect(err.code).toBe('ERR_PROVIDER_FAILED');
    expect(err.message).toContain('the media before it was delivered as M1');
  });

  it('refuses an interactive message, sending nothing', async () => {
    const err = await failure(send(interactiveContent('engine_a/quickReply', { message: 'Pick', buttons: [] })));
    expect(err.code).toBe('ERR_VALIDATION');
    expect(err.message).toBe(`engine_a/quickReply cannot be sent through ${kind} channels: they take text and media only`);
    expect(err.details).toEqual([{ field: 'interactive_type', message: `is not available on ${kind} channels` }]);
    expect(engine.requests).toEqual([]);
  });

  it('refuses a message with neither text nor media, sending nothing', async () => {
    expect((await failure(send(contentOf()))).code).toBe('ERR_VALIDATION');
    expect(engine.requests).toEqual([]);
  });

  it('fails with ERR_PROVIDER_FAILED, sending nothing, when no engine URL is configured', async () => {
    const err = await failure(send(contentOf({ text: 'Hi' }), channel({ engineUrl: '' })));
    expect(err.code).toBe('ERR_PROVIDER_FAILED');
    expect(err.message).toContain(`no engine URL (channel engineUrl, ENGINE_URL_${kind.toUpperCase()} or ENGINE_URL)`);
    expect(engine.requests).toEqual([]);
  });

  it(`falls back to ENGINE_URL_${kind.toUpperCase()} when the channel has none`, async () => {
    const configured = make(settingsWith(TIMEOUT_MS, { engineUrl: (k) => (k === kind ? `${engine.url}${path}` : '') }));
    await expect(
      configured.send({ channel: channel({ engineUrl: '' }), to: '5511987654321', content: contentOf({ text: 'Hi' }), reference: 'r' }),
    ).resolves.toEqual({
      providerMessageId: 'M1',
    });
  });

  it('tolerates trailing slashes on the engine URL', async () => {
    await send(contentOf({ text: 'Hi' }), channel({ engineUrl: `${engine.url}${path}//` }));
    expect(engine.requests[0].url).not.toContain('//');
  });

  it('fails with ERR_PROVIDER_FAILED carrying the status and reason when the engine refuses', async () => {
    engine.answer(() => ({ status: 401, body: { message: 'invalid token' } }));
    const err = await failure(send(contentOf({ text: 'Hi' })));
    expect(err.code).toBe('ERR_PROVIDER_FAILED');
    expect(err.message).toMatch(/HTTP 401/);
    expect(err.message).toContain('invalid token');
  });

  it('fails with ERR_PROVIDER_FAILED on the timeout when the engine never answers, hanging up on it', async () => {
    engine.answer(() => 'hang');
    const err = await failure(send(contentOf({ text: 'Hi' })));
    expect(err.code).toBe('ERR_PROVIDER_FAILED');
    expect(err.message).toContain(`no answer within ${TIMEOUT_MS} ms`);
    // Only the driver's timeout says "no answer within"; the engine saw the request and the driver hung up on it.
    expect(engine.requests).toHaveLength(1);
    await engine.hangUps();
  });

  it('fails with ERR_PROVIDER_FAILED when the engine is unreachable', async () => {
    const err = await failure(send(contentOf({ text: 'Hi' }), channel({ engineUrl: `http://127.0.0.1:1${path}` })));
    expect(err.code).toBe('ERR_PROVIDER_FAILED');
    expect(err.message).toContain(`${kind} is unreachable`);
  });

  it('fails with ERR_PROVIDER_FAILED on a success answer without the id', async () => {
    engine.answer(() => ({ status: 200, body: {} }));
    const err = await failure(send(contentOf({ text: 'Hi' })));
    expect(err.code).toBe('ERR_PROVIDER_FAILED');
    expect(err.message).toContain(`${kind} answered without`);
  });

  it('refuses a webhook body that is not a JSON object, and yields no event for an event it does not use', () => {
    expect(syncFailure(() => driver.parseInbound(channel(), [1, 2])).code).toBe('ERR_VALIDATION');
    expect(driver.parseInbound(channel(), { event: 'presence.update', type: 'PresenceChatCallback', dataType: 'qr', payload: {} })).toEqual(
      [],
    );
  });
});

describe.each(engines.filter((e) => e.path === '/main'))('$kind (session in the engine URL)', ({ kind, make }) => {
  const driver = make(settingsWith(TIMEOUT_MS));

  it('fails with ERR_PROVIDER_FAILED, sending nothing, when the engine URL names no session', async () => {
    const err = await failure(
      driver.send({
        channel: channelOf(kind, { engineUrl: engine.url }),
        to: '5511987654321',
        content: contentOf({ text: 'Hi' }),
        reference: 'r',
      }),
    );
    expect(err.code).toBe('ERR_PROVIDER_FAILED');
    expect(err.message).toContain('engine URL must end with the session name');
    expect(engine.requests).toEqual([]);
  });
});

// ---- through the started service: the six kinds are registered and reached over gRPC ----------

describe('engine_d … engine_h and whatsapp over gRPC', () => {
  let svc: TestService<'channelEngines'>;

  beforeAll(async () => {
    svc = await startServiceForTest(channelEnginesService, {
      name: 'channel-engines-rest-engines-test',
      env: { PROVIDER_TIMEOUT_MS: '1000' },
    });
  });
  afterAll(() => svc?.stop());

  it('lists the six drivers', async () => {
    const { kinds } = await svc.client.ListDrivers({});
    expect(kinds).toEqual(expect.arrayContaining(engines.map((e) => e.kind)));
  });

  it('delivers through engine_g (WAHA) and records the delivery', async () => {
    engine.answer(() => ({ status: 201, body: { id: 'true_5511987654321@c.us_GRPC1' } }));
    const channel = channelOf('engine_g', { id: 301, tenantId: 9, engineUrl: `${engine.url}/default` });
    await expect(
      svc.client.Deliver({ channel, to: '5511987654321', content: { text: 'Hi' }, reference: 'ref-301' }),
    ).resolves.toMatchObject({
      providerMessageId: 'true_5511987654321@c.us_GRPC1',
      driver: 'engine_g',
    });
    expect(engine.requests.map((r) => ({ url: r.url, body: r.body }))).toEqual([
      { url: '/api/sendText', body: { session: 'default', chatId: '5511987654321@c.us', text: 'Hi' } },
    ]);
    expect(await deliveryRecords(svc.db, 301)).toEqual([
      expect.objectContaining({ tenantId: 9, driver: 'engine_g', ok: true, providerMessageId: 'true_5511987654321@c.us_GRPC1' }),
    ]);
  });

  it('checks a number through engine_e (WPPConnect)', async () => {
    engine.answer(() => ({
      status: 200,
      body: { status: 'success', response: { numberExists: true, id: { _serialized: '5511987654321@c.us' } } },
    }));
    const channel = channelOf('engine_e', { engineUrl: `${engine.url}/main` });
    await expect(svc.client.CheckNumber({ channel, number: '5511987654321' })).resolves.toEqual({
      exists: true,
      networkId: '5511987654321@c.us',
    });
  });

  it('parses an engine_f (Z-API) webhook into events stamped with the channel', async () => {
    const channel = channelOf('engine_f', { id: 302, engineUrl: `${engine.url}/instances/3C01/token/T0K` });
    const body = Buffer.from(
      JSON.stringify({
        type: 'MessageStatusCallback',
        status: 'READ',
        ids: ['71B2D1A84A1F786E3226'],
        momment: 1632234645000,
        phone: '5544999999999',
      }),
    );
    const { events } = await svc.client.ParseInbound({ source: 'engine', channel, body });
    expect(events).toEqual([
      expect.objectContaining({
        kind: 'status',
        channelId: 302,
        channelType: 'engine_f',
        providerMessageId: '71B2D1A84A1F786E3226',
        status: 'read',
        timestampMs: '1632234645000',
      }),
    ]);
  });
});
