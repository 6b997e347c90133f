import { grpc, type proto } from '@convo/kit';
import { startFakeProvider, startServiceForTest, type FakeProvider, type TestService } from '@convo/test-support';
import { channelEnginesService } from '../../src/spec';

type Outcome = proto.channelEngines.DeliverOutcome__Output;

/**
 * DeliverStream, the dispatcher's path to the providers: items answered by id as their provider
 * calls end, failures as the status a unary Deliver would carry, and a shutdown that loses no
 * provider call's outcome. Real service, real gRPC, a fake engine on loopback.
 */
describe('DeliverStream', () => {
  let provider: FakeProvider;
  let svc: TestService<'channelEngines'>;

  beforeAll(async () => {
    provider = await startFakeProvider();
  });
  beforeEach(async () => {
    svc = await startServiceForTest(channelEnginesService, {
      name: 'deliver-stream-test',
      env: { PROVIDER_TIMEOUT_MS: '400', SHUTDOWN_GRACE_MS: '5000' },
    });
    provider.reset();
    // The text says how to answer: "hang" is never answered (the driver's timeout fails it).
    provider.answer((req) =>
      JSON.stringify(req.body).includes('hang') ? 'hang' : { status: 200, body: { key: { id: `E-${req.body.options.messageId}` } } },
    );
  });
  afterEach(() => svc?.stop());
  afterAll(() => provider.close());

  const item = (id: number, text: string): proto.channelEngines.DeliverItem => ({
    id,
    request: {
      channel: { id: 7, tenantId: 3, type: 'engine_a', engineUrl: provider.url },
      to: '5511987654321',
      content: { text },
      reference: `ref-${id}`,
    },
    traceparent: '',
  });
  const collect = (call: grpc.ClientDuplexStream<proto.channelEngines.DeliverItem, Outcome>) => {
    const outcomes: Outcome[] = [];
    call.on('data', (o: Outcome) => outcomes.push(o));
    const ended = new Promise<void>((resolve, reject) => {
      call.on('end', resolve);
      call.on('error', reject);
    });
    return { outcomes, ended };
  };
  const until = async (what: () => boolean) => {
    for (let i = 0; i < 200 && !what(); i++) await new Promise((r) => setTimeout(r, 10));
    expect(what()).toBe(true);
  };

  it('answers each item with its id as its provider call ends, and a refusal as the status a unary call carries', async () => {
    const call = svc.client.DeliverStream();
    const { outcomes, ended } = collect(call);
    call.write(item(1, 'hang'));
    call.write(item(2, 'hello'));
    await until(() => outcomes.length === 2);
    call.end();
    await ended;

    // The second answered first: its provider call ended first.
    expect(outcomes.map((o) => o.id)).toEqual([2, 1]);
    const hello = provider.requests.find((r) => JSON.stringify(r.body).includes('hello'))!;
    expect(outcomes[0].response).toMatchObject({ providerMessageId: `E-${hello.body.options.messageId}`, driver: 'engine_a' });
    expect(outcomes[1].error).toMatchObject({ code: grpc.status.UNAVAILABLE, errorCode: 'ERR_PROVIDER_FAILED' });
    expect(JSON.parse(outcomes[1].error!.detailsJson)).toEqual([expect.objectContaining({ provider: 'engine_a', transient: true })]);
  });

  it('ends the stream once the client ended its side and every item is answered', async () => {
    const call = svc.client.DeliverStream();
    const { outcomes, ended } = collect(call);
    call.write(item(5, 'hang'));
    call.end();
    await ended;
    expect(outcomes.map((o) => [o.id, o.result])).toEqual([[5, 'error']]);
  });

  it('shutting down, answers the items under way, refuses new ones without a provider call, then ends', async () => {
    const call = svc.client.DeliverStream();
    const { outcomes, ended } = collect(call);
    call.write(item(1, 'hang'));
    await until(() => provider.requests.length === 1);
    const stopped = svc.stop();
    await new Promise((r) => setTimeout(r, 50));
    call.write(item(2, 'after the shutdown began'));
    await ended;
    await stopped;

    expect(outcomes.map((o) => [o.id, o.error?.errorCode])).toEqual([
      [2, 'ERR_UNAVAILABLE'],
      [1, 'ERR_PROVIDER_FAILED'],
    ]);
    expect(provider.requests).toHaveLength(1);
  });
});
