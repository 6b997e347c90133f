import { META_GRAPH_VERSION } from '@convo/kit/meta-graph';
import { startFakeProvider, type FakeProvider } from '@convo/test-support';
import { channelOf, failure, settingsWith } from '../support/driver-fixtures';
import { TemplateCatalogs, templateOf } from '../../src/drivers/waba-templates';

// The catalog of a waba channel read from a loopback Graph API: Meta's paging, the cache per
// channel, and the parameters each component takes.

const CACHE_MS = 200;
let graph: FakeProvider;
let catalogs: TemplateCatalogs;
let templates: Array<Record<string, unknown>>;

beforeAll(async () => {
  graph = await startFakeProvider((req) => {
    const url = new URL(req.url, 'http://graph');
    const limit = Number(url.searchParams.get('limit'));
    const start = Number(url.searchParams.get('after') ?? 0);
    const data = templates.slice(start, start + limit);
    const more = start + limit < templates.length;
    return {
      status: 200,
      body: {
        data,
        paging: {
          cursors: { before: String(start), after: String(start + data.length) },
          ...(more && { next: `https://graph.facebook.com/next?after=${start + limit}` }),
        },
      },
    };
  });
});
afterAll(() => graph.close());
beforeEach(() => {
  graph.reset();
  templates = Array.from({ length: 250 }, (_, i) => ({
    name: `t${i}`,
    language: 'en_US',
    status: 'APPROVED',
    category: 'UTILITY',
    components: [{ type: 'BODY', text: 'Hi {{1}}' }],
  }));
  catalogs = new TemplateCatalogs(settingsWith(1_000, { metaGraphUrl: `${graph.url}/${META_GRAPH_VERSION}` }), CACHE_MS);
});

const channel = (over = {}) => channelOf('waba', { id: 9, wabaId: 'WABA-1', bmToken: 'bm-token', tokenApi: '1', ...over });

describe('TemplateCatalogs', () => {
  it('reads every page of GET /{waba-id}/message_templates with the business token, following paging.cursors.after while paging.next is there', async () => {
    const { templates: got } = await catalogs.list(channel(), false);
    expect(got).toHaveLength(250);
    expect(graph.requests.map((r) => new URL(r.url, 'http://x').searchParams.get('after'))).toEqual([null, '100', '200']);
    expect(graph.requests[0].url).toBe(
      `/${META_GRAPH_VERSION}/WABA-1/message_templates?fields=name%2Clanguage%2Cstatus%2Ccategory%2Ccomponents&limit=100`,
    );
    expect(graph.requests.every((r) => r.headers.authorization === 'Bearer bm-token')).toBe(true);
  });

  it('keeps the catalog per channel: a refresh reads Meta again only once the copy is TEMPLATE_CACHE_MS old, concurrent reads share one', async () => {
    await Promise.all([catalogs.list(channel(), false), catalogs.list(channel(), true)]);
    expect(graph.requests).toHaveLength(3);
    await catalogs.list(channel(), true);
    await catalogs.list(channel(), false);
    expect(graph.requests).toHaveLength(3);
    await new Promise((resolve) => setTimeout(resolve, CACHE_MS));
    await catalogs.list(channel(), false);
    expect(graph.requests).toHaveLength(3);
    await catalogs.list(channel(), true);
    expect(graph.requests).toHaveLength(6);
    // Another channel, or the same with another token, has its own copy.
    await catalogs.list(channel({ id: 10 }), false);
    await catalogs.list(channel({ bmToken: 'rotated' }), false);
    expect(graph.requests).toHaveLength(12);
  });

  it('refuses a channel that is not waba, and a waba channel without its account id', async () => {
    expect((await failure(catalogs.list(channelOf('engine_a', { id: 1 }), false))).code).toBe('ERR_CHANNEL_MISMATCH');
    expect((await failure(catalogs.list(channel({ wabaId: '' }), false))).code).toBe('ERR_PROVIDER_FAILED');
  });
});

describe('templateOf: the parameters each component takes', () => {
  it('counts distinct placeholders of text headers and bodies, one for a media header, one per dynamic URL or copy-code button', () => {
    const t = templateOf({
      name: 'order',
      language: 'pt_BR',
      status: 'APPROVED',
      category: 'UTILITY',
      components: [
        { type: 'HEADER', format: 'IMAGE' },
        { type: 'BODY', text: 'Hi {{1}}, order {{2}} ({{1}}) ships {{ date }}' },
        { type: 'FOOTER', text: 'Shop' },
        {
          type: 'BUTTONS',
          buttons: [
            { type: 'URL', url: 'https://x.example/{{1}}' },
            { type: 'URL', url: 'https://x.example/static' },
            { type: 'COPY_CODE' },
            { type: 'QUICK_REPLY', text: 'Stop' },
          ],
        },
      ],
    });
    expect(t!.components).toEqual([
      { type: 'header', index: 0, format: 'IMAGE', parameters: 1 },
      { type: 'body', index: 0, format: '', parameters: 3 },
      { type: 'button', index: 0, format: 'URL', parameters: 1 },
      { type: 'button', index: 1, format: 'URL', parameters: 0 },
      { type: 'button', index: 2, format: 'COPY_CODE', parameters: 1 },
      { type: 'button', index: 3, format: 'QUICK_REPLY', parameters: 0 },
    ]);
    expect(templateOf({ language: 'en' })).toBeNull();
  });
});
