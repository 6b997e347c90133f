import { startFakeProvider, type FakeProvider } from '@convo/test-support';
import { channelOf, contentOf, failure, settingsWith, syncFailure } from '../support/driver-fixtures';
import type { Outbound } from '../../src/drivers/driver';
import { MarketplaceDriver } from '../../src/drivers/marketplace.driver';

const TIMEOUT_MS = 2_000;
const target = (over: Partial<Outbound['channel']> = {}) => channelOf('marketplace', { id: 5, engineToken: 'bridge-secret', ...over });
const content = (over: Partial<Outbound['content']> = {}) => contentOf({ text: 'Your parcel left today', ...over });

let bridge: FakeProvider;
beforeAll(async () => {
  bridge = await startFakeProvider((req) => ({ status: 201, body: { id: `MK-${req.body.reference}` } }));
});
afterAll(() => bridge.close());
beforeEach(() => bridge.reset());

describe('MarketplaceDriver.send', () => {
  // ENGINE_URL is set for the engines; a marketplace bridge must never be looked for there.
  const driver = new MarketplaceDriver(settingsWith(TIMEOUT_MS, { engineUrl: () => 'http://127.0.0.1:9' }));
  const send = (over: Partial<Outbound> = {}) =>
    driver.send({ channel: target({ engineUrl: `${bridge.url}/` }), to: 'conv-981', content: content(), reference: 'msg-1', ...over });

  it('posts the bridge contract to {engineUrl}/messages with the bearer token and answers its id', async () => {
    await expect(send()).resolves.toEqual({ providerMessageId: 'MK-msg-1' });

    expect(bridge.requests).toHaveLength(1);
    const [req] = bridge.requests;
    expect(req.method).toBe('POST');
    expect(req.url).toBe('/messages');
    expect(req.headers.authorization).toBe('Bearer bridge-secret');
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.body).toEqual({ conversationId: 'conv-981', text: 'Your parcel left today', attachments: [], reference: 'msg-1' });
  });

  it('sends a file as one attachment with its link, type and name', async () => {
    await send({
      content: content({
        text: '',
        mediaUrl: 'https://gw.example/media/m1/label.pdf?sig=x',
        mimeType: 'application/pdf',
        fileName: 'label.pdf',
      }),
    });
    expect(bridge.requests[0].body).toEqual({
      conversationId: 'conv-981',
      text: '',
      attachments: [{ url: 'https://gw.example/media/m1/label.pdf?sig=x', mimeType: 'application/pdf', fileName: 'label.pdf' }],
      reference: 'msg-1',
    });
  });

  it('takes a numeric id as its text', async () => {
    bridge.answer(() => ({ status: 200, body: { id: 123456789 } }));
    await expect(send()).resolves.toEqual({ providerMessageId: '123456789' });
  });

  it("fails with the bridge's reason when it refuses", async () => {
    bridge.answer(() => ({ status: 422, body: { message: 'conversation closed by the marketplace' } }));
    const err = await failure(send());
    expect(err.code).toBe('ERR_PROVIDER_FAILED');
    expect(err.message).toContain('422');
    expect(err.message).toContain('conversation closed by the marketplace');
  });

  it.each([[{}], [{ id: '' }], [{ id: null }]])('fails when a 2xx carries no id (%j)', async (body) => {
    bridge.answer(() => ({ status: 200, body }));
    expect((await failure(send())).message).toMatch(/without id/);
  });

  it('fails on the timeout when the bridge never answers, hanging up on it', async () => {
    bridge.answer(() => 'hang');
    const err = await failure(send());
    expect(err.message).toMatch(/no answer within 2000 ms/);
    // Only the driver's timeout says "no answer within"; the engine saw the request and the driver hung up on it.
    expect(bridge.requests).toHaveLength(1);
    await bridge.hangUps();
  });

  it('fails without a request when the channel has no bridge URL', async () => {
    const err = await failure(send({ channel: target() }));
    expect(err.code).toBe('ERR_PROVIDER_FAILED');
    expect(err.message).toMatch(/no bridge URL/);
    expect(bridge.requests).toEqual([]);
  });
});

describe('MarketplaceDriver.parseInbound', () => {
  const driver = new MarketplaceDriver(settingsWith(TIMEOUT_MS));
  const parse = (body: unknown) => driver.parseInbound(target(), body);
  const message = {
    type: 'message',
    conversationId: 'conv-981',
    buyerName: 'Bruno',
    id: 'mk-m-1',
    text: 'Is it in stock?',
    timestamp: 1767323045000,
  };

  it("turns a buyer's message into an incoming text message of the conversation", () => {
    expect(parse(message)).toEqual([
      {
        kind: 'message',
        from: 'conv-981',
        contactName: 'Bruno',
        providerMessageId: 'mk-m-1',
        body: 'Is it in stock?',
        messageType: 'text',
        timestampMs: 1767323045000,
        rawJson: JSON.stringify(message),
      },
    ]);
  });

  it('types a message by its first attachment and splits further attachments into their own messages', () => {
    const events = parse({
      ...message,
      attachments: [
        { url: 'https://mk.example/p.jpg', mimeType: 'image/jpeg', fileName: 'p.jpg' },
        { url: 'https://mk.example/r.pdf', mimeType: 'application/pdf', fileName: 'r.pdf' },
      ],
    });
    expect(events.map((e) => [e.providerMessageId, e.body, e.messageType, e.mediaUrl, e.fileName])).toEqual([
      ['mk-m-1', 'Is it in stock?', 'image', 'https://mk.example/p.jpg', 'p.jpg'],
      ['mk-m-1#2', '', 'document', 'https://mk.example/r.pdf', 'r.pdf'],
    ]);
  });

  it('reads an ISO 8601 timestamp, and stamps the arrival time when there is none', () => {
    expect(parse({ ...message, timestamp: '2026-01-02T03:04:05Z' })[0].timestampMs).toBe(Date.parse('2026-01-02T03:04:05Z'));
    const before = Date.now();
    const { timestamp: _none, ...untimed } = message;
    expect(parse(untimed)[0].timestampMs).toBeGreaterThanOrEqual(before);
  });

  it('turns a status into a delivery status of our message', () => {
    expect(parse({ type: 'status', id: 'MK-msg-1', status: 'read' })).toEqual([
      {
        kind: 'status',
        providerMessageId: 'MK-msg-1',
        status: 'read',
        error: '',
        timestampMs: expect.any(Number),
        rawJson: expect.any(String),
      },
    ]);
    expect(parse({ type: 'status', id: 'MK-msg-2', status: 'failed', error: 'buyer blocked the seller' })[0]).toMatchObject({
      status: 'failed',
      error: 'buyer blocked the seller',
    });
  });

  it('ignores statuses and event types it does not apply, and takes arrays of events', () => {
    expect(
      parse([{ type: 'status', id: 'x', status: 'archived' }, { type: 'typing', conversationId: 'c' }, message]).map((e) => e.kind),
    ).toEqual(['message']);
  });

  it.each([
    ['a message without conversation and id', { type: 'message', text: 'hi' }, ['conversationId', 'id']],
    ['a message without text or attachments', { type: 'message', conversationId: 'c', id: 'm' }, ['text']],
    ['a conversation id that cannot be a contact', { ...message, conversationId: 'conv 981/x' }, ['conversationId']],
    ['bad attachments', { ...message, attachments: [{ mimeType: 'image/png' }] }, ['attachments']],
    ['a status without id', { type: 'status', status: 'read' }, ['id']],
  ])('refuses %s, naming the fields', (_label, body, fields) => {
    const err = syncFailure(() => parse(body));
    expect(err.code).toBe('ERR_VALIDATION');
    expect((err.details as { field: string }[]).map((d) => d.field)).toEqual(fields);
  });

  it('refuses a body that is not an event object', () => {
    expect(() => parse('hello')).toThrow(/must be JSON objects/);
    expect(() => parse([message, 3])).toThrow(/must be JSON objects/);
  });
});
