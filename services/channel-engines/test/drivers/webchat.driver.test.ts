import * as grpc from '@grpc/grpc-js';
import { grpcToHttp } from '@convo/kit';
import { errFields, rpcError, startServiceForTest, type TestService } from '@convo/test-support';
import { channelOf, deliveryRecords } from '../support/driver-fixtures';
import { channelEnginesService } from '../../src/spec';

/** Web chat through the started service: Deliver queues, PullWebchat reads, over real gRPC and the real database. */
describe('web chat over gRPC', () => {
  let svc: TestService<'channelEngines'>;
  let lastChannel = 300;

  beforeAll(async () => {
    svc = await startServiceForTest(channelEnginesService, { name: 'channel-engines-webchat-test' });
  });
  afterAll(() => svc?.stop());

  const deliver = (channelId: number, visitor: string, text: string, more: Record<string, string> = {}) =>
    svc.client.Deliver({
      channel: channelOf('webchat', { id: channelId, tenantId: 4 }),
      to: visitor,
      content: { text, ...more },
      reference: `ref-${text}`,
    });
  const pull = (channelId: number, visitorId: string, after = '', limit = 0) =>
    svc.client.PullWebchat({ channelId, visitorId, after, limit });
  const texts = (res: { messages: { text: string }[] }) => res.messages.map((m) => m.text);

  it('refuses a delivery without channel and recipient, naming both at once', async () => {
    const err = await rpcError(svc.client.Deliver({ to: '', content: { text: 'x' }, reference: 'r' }));
    expect(err.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(errFields(err)).toEqual(['channel', 'to']);
  });

  it('lists the web chat, marketplace and webmail drivers', async () => {
    const { kinds } = await svc.client.ListDrivers({});
    expect(kinds).toEqual(expect.arrayContaining(['webchat', 'marketplace', 'webmail']));
  });

  it('queues a message: status queued, the queue entry id as provider id, and a delivery record', async () => {
    const channelId = ++lastChannel;
    const res = await deliver(channelId, '551100000001', 'Hello visitor');

    expect(res).toEqual({ providerMessageId: `${channelId}:551100000001:1`, driver: 'webchat', status: 'queued' });
    const records = await deliveryRecords(svc.db, channelId);
    expect(records).toEqual([
      expect.objectContaining({ driver: 'webchat', ok: true, providerMessageId: res.providerMessageId, tenantId: 4 }),
    ]);
  });

  it("answers the visitor's messages oldest first, with their content, and after a cursor only newer ones", async () => {
    const channelId = ++lastChannel;
    const v = '551100000002';
    await deliver(channelId, v, 'one');
    await deliver(channelId, v, 'two', { mediaUrl: 'https://gw.example/media/m/p.png?sig=s', mimeType: 'image/png', fileName: 'p.png' });
    await deliver(channelId, v, 'three', { interactiveType: 'engine_a/quickReply', interactiveJson: '{"buttons":[]}' });

    const all = await pull(channelId, v);
    expect(texts(all)).toEqual(['one', 'two', 'three']);
    expect(all.messages[1]).toEqual({
      id: `${channelId}:${v}:2`,
      reference: 'ref-two',
      text: 'two',
      mediaUrl: 'https://gw.example/media/m/p.png?sig=s',
      mimeType: 'image/png',
      fileName: 'p.png',
      interactiveType: '',
      interactiveJson: '',
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    expect(all.messages[2]).toMatchObject({ interactiveType: 'engine_a/quickReply', interactiveJson: '{"buttons":[]}' });

    expect(texts(await pull(channelId, v, all.messages[0].id))).toEqual(['two', 'three']);
    expect(texts(await pull(channelId, v, all.messages[2].id))).toEqual([]);
    expect(texts(await pull(channelId, v, '', 2))).toEqual(['one', 'two']);
  });

  it('keeps visitors and channels apart', async () => {
    const [a, b] = [++lastChannel, ++lastChannel];
    await deliver(a, '551100000003', 'for visitor 3 on a');
    await deliver(a, '551100000004', 'for visitor 4 on a');
    await deliver(b, '551100000003', 'for visitor 3 on b');

    expect(texts(await pull(a, '551100000003'))).toEqual(['for visitor 3 on a']);
    expect(texts(await pull(a, '551100000004'))).toEqual(['for visitor 4 on a']);
    expect(texts(await pull(b, '551100000003'))).toEqual(['for visitor 3 on b']);
    expect(texts(await pull(b, '551100000004'))).toEqual([]);
  });

  it("refuses a cursor of another visitor's conversation", async () => {
    const channelId = ++lastChannel;
    const { providerMessageId } = await deliver(channelId, '551100000005', 'mine');
    for (const [visitor, after] of [
      ['551100000006', providerMessageId],
      ['551100000005', `${channelId + 1}:551100000005:1`],
      ['551100000005', 'garbage'],
    ]) {
      const err = await rpcError(pull(channelId, visitor, after));
      expect(err.code).toBe(grpc.status.INVALID_ARGUMENT);
      expect(grpcToHttp(err).body.details).toEqual([{ field: 'after', message: expect.any(String) }]);
    }
  });

  it('refuses a pull without channel or visitor', async () => {
    const err = await rpcError(pull(0, ''));
    expect(err.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(grpcToHttp(err).body.details).toEqual([
      { field: 'channelId', message: 'is required' },
      { field: 'visitorId', message: 'is required' },
    ]);
  });

  it('gives concurrent messages to one visitor distinct, gapless positions', async () => {
    const channelId = ++lastChannel;
    const v = '551100000007';
    const sent = await Promise.all(Array.from({ length: 12 }, (_, i) => deliver(channelId, v, `m${i}`)));

    const ids = sent.map((s) => s.providerMessageId).sort((x, y) => Number(x.split(':')[2]) - Number(y.split(':')[2]));
    expect(ids).toEqual(Array.from({ length: 12 }, (_, i) => `${channelId}:${v}:${i + 1}`));
    const read = await pull(channelId, v);
    expect(read.messages.map((m) => m.id)).toEqual(ids);
    expect(new Set(texts(read)).size).toBe(12);
  });

  it('indexes the queue by channel, visitor and position', async () => {
    const indexes = await svc.db.collection('webchat_messages').indexes();
    expect(indexes.map((i) => i.key)).toContainEqual({ channelId: 1, visitorId: 1, seq: 1 });
  });
});
