import { META_GRAPH_VERSION } from '@convo/kit/meta-graph';
import * as grpc from '@grpc/grpc-js';
import { deliveryRecords } from '../support/driver-fixtures';
import {
  closeAllClients,
  createClient,
  createLogger,
  grpcToHttp,
  startGrpcServer,
  type GrpcServerHandle,
  type proto,
  type ServiceClient,
} from '@convo/kit';
import { createConnection } from 'mongoose';
import { rpcError, startFakeProvider, startServiceForTest, type FakeProvider, type TestService } from '@convo/test-support';
import { DeliveriesRepository } from '../../src/db/deliveries.repository';
import { EnginesService } from '../../src/domain/engines.service';
import type { Driver } from '../../src/drivers/driver';
import { enginesHandlers } from '../../src/grpc/engines.handlers';
import { channelEnginesService } from '../../src/spec';

// The Meta kinds through the started service: Deliver reaches a fake Graph API over real HTTP,
// ParseInbound turns Meta's envelope into events, both over real gRPC.

const target = (over: Partial<proto.channelEngines.ChannelTarget>): proto.channelEngines.ChannelTarget => ({
  id: 1,
  tenantId: 9,
  tokenApi: '106540352242922',
  bmToken: 'bm-token',
  pageId: '1234567890',
  pageToken: 'page-token',
  ...over,
});

describe('Meta kinds over gRPC', () => {
  let graph: FakeProvider;
  let svc: TestService<'channelEngines'>;

  beforeAll(async () => {
    graph = await startFakeProvider((req) =>
      req.body.messaging_product
        ? { status: 200, body: { messages: [{ id: 'wamid.OK' }] } }
        : { status: 200, body: { recipient_id: '1', message_id: 'm_OK' } },
    );
    svc = await startServiceForTest(channelEnginesService, {
      name: 'channel-engines-meta-test',
      env: { PROVIDER_TIMEOUT_MS: '1000', META_GRAPH_URL: `${graph.url}/${META_GRAPH_VERSION}/` },
    });
  });

  afterAll(async () => {
    await svc?.stop();
    await graph?.close();
  });

  beforeEach(() => graph.reset());

  it('lists the waba, social_a and social_b drivers', async () => {
    const { kinds } = await svc.client.ListDrivers({});
    expect(kinds).toEqual(expect.arrayContaining(['waba', 'social_a', 'social_b']));
  });

  it('delivers a waba text through META_GRAPH_URL and records it', async () => {
    const res = await svc.client.Deliver({ channel: target({ id: 301, type: 'waba' }), to: '5511987654321', content: { text: 'Hi' } });

    expect(res).toMatchObject({ providerMessageId: 'wamid.OK', driver: 'waba' });
    expect(graph.requests.map((r) => [r.url, r.headers.authorization, r.body])).toEqual([
      [
        `/${META_GRAPH_VERSION}/106540352242922/messages`,
        'Bearer bm-token',
        { messaging_product: 'whatsapp', recipient_type: 'individual', to: '5511987654321', type: 'text', text: { body: 'Hi' } },
      ],
    ]);
    expect(await deliveryRecords(svc.db, 301)).toEqual([
      expect.objectContaining({ driver: 'waba', ok: true, providerMessageId: 'wamid.OK' }),
    ]);
  });

  it('delivers a social_b quick reply from its interactive JSON', async () => {
    const res = await svc.client.Deliver({
      channel: target({ id: 302, type: 'social_b' }),
      to: '24075368705412345',
      content: {
        interactiveType: 'social_b/quickReply',
        interactiveJson: JSON.stringify({ message: 'Pick', quickReplies: [{ content_type: 'user_phone_number' }] }),
      },
    });
    expect(res).toMatchObject({ providerMessageId: 'm_OK', driver: 'social_b' });
    expect(graph.requests[0].url).toBe(`/${META_GRAPH_VERSION}/1234567890/messages`);
    expect(graph.requests[0].body).toEqual({
      recipient: { id: '24075368705412345' },
      messaging_type: 'RESPONSE',
      message: { text: 'Pick', quick_replies: [{ content_type: 'user_phone_number' }] },
    });
  });

  it('answers a Graph refusal as 502 ERR_PROVIDER_FAILED with Meta’s code and fbtrace_id', async () => {
    graph.answer(() => ({
      status: 400,
      body: { error: { message: '(#131047) Re-engagement message', code: 131047, error_subcode: 2494010, fbtrace_id: 'AbC' } },
    }));
    const err = await rpcError(
      svc.client.Deliver({ channel: target({ id: 303, type: 'waba' }), to: '5511987654321', content: { text: 'Hi' } }),
    );

    expect(err.code).toBe(grpc.status.UNAVAILABLE);
    expect(grpcToHttp(err)).toEqual({
      status: 502,
      body: {
        success: false,
        error: 'ERR_PROVIDER_FAILED',
        message:
          'waba refused the message (HTTP 400): outside the 24-hour window (re-engagement): only an approved template reaches this contact now: (#131047) Re-engagement message (code 131047, subcode 2494010)',
        details: [
          {
            provider: 'waba',
            status: 400,
            message: '(#131047) Re-engagement message',
            code: 131047,
            error_subcode: 2494010,
            fbtrace_id: 'AbC',
          },
        ],
      },
    });
  });

  it('parses a Meta webhook into events, int64 timestamps as strings', async () => {
    const body = {
      object: 'whatsapp_business_account',
      entry: [
        {
          id: '102290129340398',
          changes: [
            {
              field: 'messages',
              value: {
                metadata: { phone_number_id: '106540352242922' },
                contacts: [{ profile: { name: 'Sheena Nelson' }, wa_id: '16505551234' }],
                messages: [{ from: '16505551234', id: 'wamid.IN', timestamp: '1749416383', type: 'text', text: { body: 'Hello' } }],
              },
            },
          ],
        },
      ],
    };
    const { events } = await svc.client.ParseInbound({ source: 'meta', body: Buffer.from(JSON.stringify(body)) });
    expect(events).toEqual([
      expect.objectContaining({
        kind: 'message',
        channelId: 0,
        channelType: 'waba',
        accountId: '106540352242922',
        from: '16505551234',
        contactName: 'Sheena Nelson',
        providerMessageId: 'wamid.IN',
        body: 'Hello',
        messageType: 'text',
        timestampMs: '1749416383000',
        rawJson: JSON.stringify(body.entry[0].changes[0].value.messages[0]),
      }),
    ]);
  });

  it.each([
    ['a Meta body that is not JSON', { source: 'meta', body: Buffer.from('{"object":') }, 'The webhook body is not valid JSON'],
    ['an unknown source', { source: 'carrier_pigeon', body: Buffer.from('{}') }, 'Unknown inbound source carrier_pigeon'],
    ['an engine webhook without channel', { source: 'engine', body: Buffer.from('{}') }, 'channel is required'],
    [
      'an engine webhook for a Meta kind',
      { source: 'engine', channel: target({ type: 'waba' }), body: Buffer.from('{}') },
      'channel kind waba does not receive engine webhooks',
    ],
  ])('refuses %s with INVALID_ARGUMENT / ERR_VALIDATION', async (_label, req, message) => {
    const err = await rpcError(svc.client.ParseInbound(req));
    expect(err.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(err.metadata.get('err-code')).toEqual(['ERR_VALIDATION']);
    expect(err.details).toBe(message);
  });

  it('SendPresence: a sender action through the Send API; applied false, calling nobody, on a kind without presence', async () => {
    await expect(
      svc.client.SendPresence({ channel: target({ type: 'social_b' }), to: '2468', state: 'typing', replyTo: '' }),
    ).resolves.toEqual({ applied: true, driver: 'social_b' });
    expect(graph.requests.map((r) => ({ url: r.url, body: r.body }))).toEqual([
      { url: `/${META_GRAPH_VERSION}/1234567890/messages`, body: { recipient: { id: '2468' }, sender_action: 'typing_on' } },
    ]);
    graph.reset();
    await expect(
      svc.client.SendPresence({ channel: target({ type: 'webchat' }), to: 'visitor-1', state: 'typing', replyTo: '' }),
    ).resolves.toEqual({ applied: false, driver: 'webchat' });
    expect(graph.requests).toEqual([]);
    const err = await rpcError(
      svc.client.SendPresence({ channel: target({ type: 'social_b' }), to: '2468', state: 'recording', replyTo: '' }),
    );
    expect(err.code).toBe(grpc.status.INVALID_ARGUMENT);
  });
});

// The engine path dispatches to the channel kind's own parser. A driver of a made-up kind stands
// in, behind the real service and handlers, so that this tests the dispatch and not any one
// engine's format (each engine's parser is tested with its driver).
describe('ParseInbound for an engine channel over gRPC', () => {
  /** Parses `{ event, id, from, text }` the way an engine driver would; ignores other events. */
  const echoEngine: Driver = {
    kind: 'engine_test',
    send: async () => ({ providerMessageId: '' }),
    parseInbound: (_channel, body) => {
      const b = body as { event?: string; id?: string; from?: string; text?: string };
      return b.event === 'message' ? [{ kind: 'message', from: b.from, providerMessageId: b.id, body: b.text, messageType: 'text' }] : [];
    },
  };
  let server: GrpcServerHandle;
  let client: ServiceClient<'channelEngines'>;

  beforeAll(async () => {
    const log = createLogger('test', 'silent');
    const engines = new EnginesService([echoEngine], new DeliveriesRepository(createConnection()), log);
    server = await startGrpcServer('channelEngines', enginesHandlers(engines), 0, log, '127.0.0.1');
    client = createClient('channelEngines', `127.0.0.1:${server.port}`);
  });
  afterAll(async () => {
    closeAllClients();
    await server?.shutdown(0);
  });

  const parse = (body: unknown) =>
    client.ParseInbound({ source: 'engine', channel: target({ id: 42, type: 'engine_test' }), body: Buffer.from(JSON.stringify(body)) });

  it("stamps the driver's events with the channel id and type", async () => {
    const { events } = await parse({ event: 'message', id: 'E1', from: '5511987654321', text: 'Hi' });
    expect(events).toEqual([
      expect.objectContaining({
        kind: 'message',
        channelId: 42,
        channelType: 'engine_test',
        from: '5511987654321',
        providerMessageId: 'E1',
        body: 'Hi',
      }),
    ]);
  });

  it('answers no event for an event the driver does not use', async () => {
    await expect(parse({ event: 'presence.update' })).resolves.toEqual({ events: [] });
  });
});
