import { META_GRAPH_VERSION } from '@convo/kit/meta-graph';
import type { proto } from '@convo/kit';
import { startFakeProvider, startTestMesh, type FakeProvider, type TestMesh, type TestService } from '@convo/test-support';
import { parseTemplateChanges } from '../../src/inbound/meta-templates';
import { channelEnginesService } from '../../src/spec';

// Meta's template webhooks (message_template_status_update, template_category_update) through two
// channel-engines replicas on one database: the change reaches one, and both catalogs show it at
// once, long before TEMPLATE_CACHE_MS would have them read Meta again.

const WABA_ID = '102290129340398';
const channel: proto.channelEngines.ChannelTarget = {
  id: 7,
  tenantId: 9,
  type: 'waba',
  wabaId: WABA_ID,
  bmToken: 'bm-token',
  tokenApi: '1065',
};
const template = (name: string, over: Record<string, unknown> = {}) => ({
  name,
  language: 'pt_BR',
  status: 'APPROVED',
  category: 'UTILITY',
  components: [{ type: 'BODY', text: 'Oi {{1}}' }],
  ...over,
});

/** One webhook POST of Meta carrying `field` with `value` for the account, at `time` (seconds). */
const webhook = (field: string, value: Record<string, unknown>, time = 1_750_000_000) => ({
  object: 'whatsapp_business_account',
  entry: [{ id: WABA_ID, time, changes: [{ field, value }] }],
});
const statusUpdate = (name: string, event: string, time?: number) =>
  webhook(
    'message_template_status_update',
    { event, message_template_id: 1, message_template_name: name, message_template_language: 'pt_BR', reason: 'NONE' },
    time,
  );
const categoryUpdate = (name: string, value: Record<string, unknown>) =>
  webhook('template_category_update', {
    message_template_id: 1,
    message_template_name: name,
    message_template_language: 'pt_BR',
    ...value,
  });

describe('template webhooks update every replica’s catalog at once', () => {
  let graph: FakeProvider;
  let catalog: Array<Record<string, unknown>>;
  let mesh: TestMesh;
  let replicas: Array<TestService<'channelEngines'>>;

  beforeAll(async () => {
    catalog = [template('welcome'), template('promo', { category: 'MARKETING' })];
    graph = await startFakeProvider(() => ({ status: 200, body: { data: catalog, paging: { cursors: {} } } }));
    mesh = await startTestMesh('channel-engines-template-changes', {
      META_GRAPH_URL: `${graph.url}/${META_GRAPH_VERSION}`,
      TEMPLATE_CACHE_MS: '600000',
    });
    replicas = [await mesh.start(channelEnginesService), await mesh.start(channelEnginesService)];
  });
  afterAll(async () => {
    await mesh.stop();
    await graph.close();
  });

  const deliver = (body: unknown, replica = 0) =>
    replicas[replica].client.ParseInbound({ source: 'meta', body: Buffer.from(JSON.stringify(body)) });
  const templates = async (replica: number, refresh = false) =>
    (await replicas[replica].client.ListTemplates({ channel, refresh })).templates;
  const entry = async (replica: number, name: string, refresh = false) => {
    const found = (await templates(replica, refresh)).find((t) => t.name === name);
    return found && { status: found.status, category: found.category };
  };

  it('a template that stops being APPROVED shows its new status on both replicas, Meta not read again', async () => {
    expect(await entry(0, 'welcome')).toEqual({ status: 'APPROVED', category: 'UTILITY' });
    expect(await entry(1, 'welcome')).toEqual({ status: 'APPROVED', category: 'UTILITY' });
    const reads = graph.requests.length;

    // The webhook carries no message event: nothing for messaging to store.
    expect((await deliver(statusUpdate('welcome', 'PAUSED'))).events).toEqual([]);
    expect(await entry(0, 'welcome')).toEqual({ status: 'PAUSED', category: 'UTILITY' });
    expect(await entry(1, 'welcome', true)).toEqual({ status: 'PAUSED', category: 'UTILITY' });
    expect(graph.requests.length).toBe(reads);
  });

  it('a completed category change re-categorises the template; an impending one changes nothing yet', async () => {
    await deliver(
      categoryUpdate('promo', { correct_category: 'UTILITY', new_category: 'MARKETING', category_update_timestamp: 1_760_000_000 }),
      1,
    );
    expect(await entry(0, 'promo')).toEqual({ status: 'APPROVED', category: 'MARKETING' });

    await deliver(categoryUpdate('promo', { previous_category: 'MARKETING', new_category: 'UTILITY' }), 1);
    expect(await entry(0, 'promo')).toEqual({ status: 'APPROVED', category: 'UTILITY' });
    expect(await entry(1, 'promo')).toEqual({ status: 'APPROVED', category: 'UTILITY' });
  });

  it('approved again, a template is sent again; a late redelivery of an older change does not undo it', async () => {
    await deliver(statusUpdate('welcome', 'APPROVED', 1_750_000_100));
    await deliver(statusUpdate('welcome', 'PAUSED', 1_750_000_000), 1);
    expect(await entry(1, 'welcome')).toEqual({ status: 'APPROVED', category: 'UTILITY' });
  });

  it('the approval of a template the copy lacks has the next refresh read Meta at once', async () => {
    catalog = [...catalog, template('launch')];
    expect(await entry(0, 'launch', true)).toBeUndefined();
    await deliver(statusUpdate('launch', 'APPROVED'), 1);
    expect(await entry(0, 'launch')).toBeUndefined();
    expect(await entry(0, 'launch', true)).toEqual({ status: 'APPROVED', category: 'UTILITY' });
  });
});

describe('parseTemplateChanges', () => {
  it('reads the account, template, language, status and category; skips what names no template', () => {
    expect(parseTemplateChanges(statusUpdate('welcome', 'disabled'))).toEqual([
      { wabaId: WABA_ID, name: 'welcome', language: 'pt_BR', status: 'DISABLED', category: '', timeMs: 1_750_000_000_000 },
    ]);
    expect(parseTemplateChanges(webhook('message_template_status_update', { event: 'APPROVED', message_template_id: 1 }))).toEqual([]);
    expect(parseTemplateChanges(webhook('messages', { statuses: [] }))).toEqual([]);
    expect(parseTemplateChanges({ object: 'page', entry: [] })).toEqual([]);
  });
});
