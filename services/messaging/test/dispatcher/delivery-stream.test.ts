import {
  closeAllClients,
  createClient,
  createLogger,
  grpc,
  startGrpcServer,
  toStatusFields,
  providerFailed,
  type AsyncHandlers,
  type GrpcServerHandle,
  type proto,
  type ServiceRegistry,
} from '@convo/kit';
import { classify } from '../../src/dispatcher/failures';

type Call = grpc.ServerDuplexStream<proto.channelEngines.DeliverItem__Output, proto.channelEngines.DeliverOutcome>;

/**
 * The dispatcher's side of DeliverStream, against a real gRPC server on loopback whose handler the
 * test drives: each Deliver settles with its own item's outcome, and fails as a unary call would
 * (deadline, a broken stream) so that the dispatcher's retry rules apply unchanged.
 */
describe('Deliver on its stream', () => {
  const log = createLogger('test', 'silent');
  let server: GrpcServerHandle;
  /** Streams the server has open, and the items each received; the test answers them (and never ends one). */
  let streams: Array<{ call: Call; items: proto.channelEngines.DeliverItem__Output[] }>;

  const start = async (port = 0) => {
    const handlers = {
      DeliverStream: (call: Call) => {
        const stream = { call, items: [] as proto.channelEngines.DeliverItem__Output[] };
        streams.push(stream);
        call.on('data', (item: proto.channelEngines.DeliverItem__Output) => stream.items.push(item));
        call.on('error', () => undefined);
      },
    } as unknown as AsyncHandlers<ServiceRegistry['channelEngines']['handlers']>;
    server = await startGrpcServer('channelEngines', handlers, port, log, '127.0.0.1');
  };
  // As the dispatcher's client (dispatcher/main.ts); each test's is its own (closeAllClients after each).
  const deliveries = (streamMs?: number) =>
    createClient('channelEngines', `127.0.0.1:${server.port}`, { streamed: { Deliver: true }, streamMs });
  const request = (reference: string): proto.channelEngines.DeliverRequest => ({
    channel: { id: 1, tenantId: 1, type: 'engine_a' },
    to: '5511987654321',
    content: { text: 'Hi' },
    reference,
  });
  const until = async (what: () => boolean) => {
    for (let i = 0; i < 200 && !what(); i++) await new Promise((r) => setTimeout(r, 10));
    expect(what()).toBe(true);
  };

  beforeEach(async () => {
    streams = [];
    await start();
  });
  afterEach(async () => {
    closeAllClients();
    await server.shutdown(0);
  });

  it("settles each delivery with its own item's outcome, in whatever order they come", async () => {
    const stream = deliveries();
    const first = stream.Deliver(request('m1'), { deadlineMs: 2_000 });
    const second = stream.Deliver(request('m2'), { deadlineMs: 2_000 });
    await until(() => streams[0]?.items.length === 2);
    const [a, b] = streams[0].items;
    expect([a.request?.reference, b.request?.reference]).toEqual(['m1', 'm2']);
    streams[0].call.write({ id: b.id, response: { providerMessageId: 'P2', driver: 'engine_a', status: 'sent' } });
    streams[0].call.write({
      id: a.id,
      error: toStatusFields(
        providerFailed('engine_a refused the message (HTTP 503): busy', [{ provider: 'engine_a', status: 503, transient: true }]),
      ),
    });

    await expect(second).resolves.toMatchObject({ providerMessageId: 'P2' });
    const err = await first.catch((e: unknown) => e);
    // The dispatcher reads it exactly as the unary call's failure: a transient provider refusal.
    expect(classify(err)).toEqual({ transient: true, retryAfterMs: null, reason: 'engine_a refused the message (HTTP 503): busy' });
  });

  it('fails DEADLINE_EXCEEDED when no answer comes in time, and ignores the late answer', async () => {
    const stream = deliveries();
    // The stream is open first, so that the short deadline below runs out waiting for the answer,
    // not for the stream to open (on a loaded machine that alone can take longer).
    const warm = stream.Deliver(request('warm'), { deadlineMs: 5_000 });
    await until(() => streams[0]?.items.length === 1);
    streams[0].call.write({ id: streams[0].items[0].id, response: { providerMessageId: 'P-warm', driver: 'engine_a', status: 'sent' } });
    await warm;
    const late = stream.Deliver(request('slow'), { deadlineMs: 100 });
    await expect(late).rejects.toMatchObject({ code: grpc.status.DEADLINE_EXCEEDED });
    await until(() => streams[0].items.length === 2);
    streams[0].call.write({ id: streams[0].items[1].id, response: { providerMessageId: 'P-late', driver: 'engine_a', status: 'sent' } });
    // The stream still serves the next delivery.
    const next = stream.Deliver(request('next'), { deadlineMs: 2_000 });
    await until(() => streams[0].items.length === 3);
    streams[0].call.write({ id: streams[0].items[2].id, response: { providerMessageId: 'P-next', driver: 'engine_a', status: 'sent' } });
    await expect(next).resolves.toMatchObject({ providerMessageId: 'P-next' });
    expect(streams).toHaveLength(1);
    expect(classify(await late.catch((e: unknown) => e)).transient).toBe(true);
  });

  it('fails what is under way at once when the engine goes, and opens a new stream for the next delivery', async () => {
    const stream = deliveries();
    const cut = stream.Deliver(request('cut'), { deadlineMs: 5_000 });
    await until(() => streams.length === 1 && streams[0].items.length === 1);
    // The engine killed: its connections drop with the item unanswered; it comes back on the same port.
    const { port } = server;
    server.server.forceShutdown();
    const err = await cut.catch((e: unknown) => e);
    // At once, not at its deadline: CANCELLED by a server that closes, UNAVAILABLE when the connection drops.
    expect([grpc.status.CANCELLED, grpc.status.UNAVAILABLE]).toContain((err as grpc.ServiceError).code);
    expect(classify(err).transient).toBe(true);
    await start(port);

    const again = stream.Deliver(request('again'), { deadlineMs: 2_000 });
    await until(() => streams.length === 2 && streams[1].items.length === 1);
    streams[1].call.write({ id: streams[1].items[0].id, response: { providerMessageId: 'P-again', driver: 'engine_a', status: 'sent' } });
    await expect(again).resolves.toMatchObject({ providerMessageId: 'P-again' });
  });

  it('moves to a new stream after its time, letting the old one answer what it took', async () => {
    const stream = deliveries(50);
    const old = stream.Deliver(request('old'), { deadlineMs: 2_000 });
    await until(() => streams[0]?.items.length === 1);
    await new Promise((r) => setTimeout(r, 80));
    const fresh = stream.Deliver(request('fresh'), { deadlineMs: 2_000 });
    await until(() => streams.length === 2 && streams[1].items.length === 1);
    expect(streams[1].items[0].request?.reference).toBe('fresh');
    streams[0].call.write({ id: streams[0].items[0].id, response: { providerMessageId: 'P-old', driver: 'engine_a', status: 'sent' } });
    streams[1].call.write({ id: streams[1].items[0].id, response: { providerMessageId: 'P-fresh', driver: 'engine_a', status: 'sent' } });
    await expect(old).resolves.toMatchObject({ providerMessageId: 'P-old' });
    await expect(fresh).resolves.toMatchObject({ providerMessageId: 'P-fresh' });
  });
});
