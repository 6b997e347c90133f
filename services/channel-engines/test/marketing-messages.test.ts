import { META_GRAPH_VERSION } from '@convo/kit/meta-graph';
import type { Logger, proto } from '@convo/kit';
import { startFakeProvider, type FakeProvider } from '@convo/test-support';
import { createConnection } from 'mongoose';
import { DeliveriesRepository } from '../src/db/deliveries.repository';
import { EnginesService } from '../src/domain/engines.service';
import { TemplateCatalogs } from '../src/drivers/waba-templates';
import { WabaDriver } from '../src/drivers/waba.driver';
import { channelOf, settingsWith } from './support/driver-fixtures';

// A waba channel with the Marketing Messages API set: the category of the template a delivery
// names is read from the channel's catalog (Meta's message_templates, on a loopback Graph API),
// and only a MARKETING one goes to /marketing_messages.

const PHONE_ID = '106540352242922';
const TEMPLATES = [
  { name: 'spring_sale', language: 'pt_BR', status: 'APPROVED', category: 'MARKETING', components: [{ type: 'BODY', text: 'Promo!' }] },
  { name: 'order_update', language: 'pt_BR', status: 'APPROVED', category: 'UTILITY', components: [{ type: 'BODY', text: 'Order {{1}}' }] },
];

let graph: FakeProvider;
let engines: EnginesService;

beforeAll(async () => {
  graph = await startFakeProvider((req) =>
    req.method === 'GET'
      ? { status: 200, body: { data: TEMPLATES, paging: { cursors: { before: '0', after: '2' } } } }
      : {
          status: 200,
          body: {
            messaging_product: 'whatsapp',
            contacts: [{ input: '5511987654321', wa_id: '5511987654321' }],
            messages: [{ id: `wamid.${req.url.split('/').pop()}` }],
          },
        },
  );
  const settings = settingsWith(2_000, { metaGraphUrl: `${graph.url}/${META_GRAPH_VERSION}` });
  const log = { info: () => undefined, warn: () => undefined, error: () => undefined } as unknown as Logger;
  engines = new EnginesService(
    [new WabaDriver(settings)],
    new DeliveriesRepository(createConnection()),
    log,
    new TemplateCatalogs(settings, 60_000),
  );
});
afterAll(() => graph.close());
beforeEach(() => graph.reset());

const channel = (marketingMessagesApi: boolean, id: number) =>
  channelOf('waba', { id, tokenApi: PHONE_ID, bmToken: 'bm-token', wabaId: 'WABA-1', marketingMessagesApi });
const template = (name: string) => ({
  interactiveType: 'waba/template',
  interactiveJson: JSON.stringify({ name, language: { code: 'pt_BR' } }),
});
const deliver = (ch: proto.channelEngines.ChannelTarget__Output, content: object) =>
  engines.deliver({ channel: ch, to: '5511987654321', content, reference: 'msg-1' } as proto.channelEngines.DeliverRequest__Output);
const posts = () => graph.requests.filter((r) => r.method === 'POST').map((r) => r.url.split('/').pop());

describe('the Marketing Messages API setting of a waba channel', () => {
  it('sends a MARKETING template to /marketing_messages and a UTILITY one to /messages, by the catalog', async () => {
    await expect(deliver(channel(true, 31), template('spring_sale'))).resolves.toMatchObject({
      providerMessageId: 'wamid.marketing_messages',
    });
    await expect(deliver(channel(true, 31), template('order_update'))).resolves.toMatchObject({ providerMessageId: 'wamid.messages' });
    expect(posts()).toEqual(['marketing_messages', 'messages']);
    // The catalog was read once, with the channel's account and token.
    const reads = graph.requests.filter((r) => r.method === 'GET');
    expect(reads).toHaveLength(1);
    expect(reads[0].url).toContain('/WABA-1/message_templates');
  });

  it('sends everything to /messages on a channel without the setting, reading no catalog', async () => {
    await deliver(channel(false, 32), template('spring_sale'));
    await deliver(channel(false, 32), { text: 'Hi' });
    expect(posts()).toEqual(['messages', 'messages']);
    expect(graph.requests.filter((r) => r.method === 'GET')).toEqual([]);
  });

  it('sends a template the catalog does not know to /messages', async () => {
    await deliver(channel(true, 33), template('unknown_one'));
    expect(posts()).toEqual(['messages']);
  });
});
