import { startFakeProvider, type FakeProvider, type ProviderRequest } from '@convo/test-support';
import { contentOf, interactiveContent } from '../support/driver-fixtures';
import { ANY_ANSWER, caseChannel, driverCases } from '../support/driver-cases';
import type { Change, Outbound, PresenceState } from '../../src/drivers/driver';
import { loadProviderSpec, type ProviderSpec } from '../support/provider-spec';

// The requests each driver sends, checked against the provider's own published request definitions
// (test/provider-specs/, extracted by scripts/extract-provider-specs.mjs; each file names its
// source): Meta's WhatsApp Cloud API OpenAPI, Meta's Graph specs of the Messenger Send API,
// Evolution API v2's own body schemas, uazapi's OpenAPI. A request the spec does not define, a
// field it forbids, a required one missing or a value outside its enum fails the test, unless the
// spec's own examples show the rule wrong (the file's x-quirks, each with its evidence).

const BUTTONS = { body: { text: 'How can we help?' }, footer: { text: 'Acme' } };
const PIX = { pixType: 'EVP', pixKey: '123e4567-e89b-12d3-a456-426614174000', pixName: 'Acme Ltda' };
const CARD = {
  text: 'Shirt',
  image: 'https://cdn.example/shirt.jpg',
  buttons: [
    { text: 'Buy', type: 'REPLY', id: 'buy' },
    { text: 'See', type: 'URL', url: 'https://shop.example/shirt' },
  ],
};

/** `marketing`: a MARKETING template on a channel with the Marketing Messages API set (POST …/marketing_messages). */
type Send = {
  label: string;
  content?: Outbound['content'];
  presence?: PresenceState;
  change?: Pick<Change, 'change' | 'emoji' | 'text'>;
  marketing?: boolean;
};
const text = (label: string, over: Partial<Outbound['content']> = {}): Send => ({ label, content: contentOf({ text: 'Hello', ...over }) });
const media = (label: string, mimeType: string, over: Partial<Outbound['content']> = {}): Send => ({
  label,
  content: contentOf({ mediaUrl: `https://cdn.example/file.${mimeType.split('/')[1]}`, mimeType, ...over }),
});
const interactive = (type: string, json: unknown): Send => ({ label: type, content: interactiveContent(type, json) });
/** A reaction (and its removal with ""), an edit and a deletion for everyone, where the kind makes them. */
const react: Send[] = [
  { label: 'reaction', change: { change: 'react', emoji: '👍', text: '' } },
  { label: 'reaction removed', change: { change: 'react', emoji: '', text: '' } },
];
const changes: Send[] = [
  ...react,
  { label: 'edit', change: { change: 'edit', emoji: '', text: 'New text' } },
  { label: 'delete for everyone', change: { change: 'delete', emoji: '', text: '' } },
];

/** Per provider: the driver that speaks to it, the spec file, and what each message type makes it send. */
const PROVIDERS: Array<{ family: string; kind: string; sends: Send[] }> = [
  {
    family: 'meta-whatsapp',
    kind: 'waba',
    sends: [
      text('text'),
      media('image with caption', 'image/jpeg', { text: 'Look' }),
      media('document with its name', 'application/pdf', { fileName: 'invoice.pdf', text: 'Your invoice' }),
      media('audio, its text after it', 'audio/ogg', { text: 'Listen' }),
      interactive('waba/template', {
        name: 'order_update',
        language: { code: 'pt_BR' },
        components: [{ type: 'body', parameters: [{ type: 'text', text: '42' }] }],
      }),
      {
        ...interactive('waba/template', { name: 'spring_sale', language: { code: 'pt_BR' } }),
        label: 'MARKETING template through the Marketing Messages API',
        marketing: true,
      },
      interactive('waba/button', { message: 'Confirm?', button1: 'Yes', button2: 'No' }),
      interactive('waba/list', {
        header: 'Menu',
        body: 'Pick a size',
        footer: 'BRL',
        button_text: 'Sizes',
        sections: [{ title: 'Sizes', rows: [{ id: 's', title: 'Small', description: 'R$ 10' }] }],
      }),
      { label: 'typing', presence: 'typing' },
      ...react,
    ],
  },
  {
    family: 'meta-messenger',
    kind: 'social_b',
    sends: [
      text('text'),
      media('image, its text after it', 'image/png', { text: 'Look' }),
      interactive('social_b/quickReply', {
        message: 'Pick a color',
        quickReplies: [{ content_type: 'text', title: 'Red', payload: 'RED' }],
      }),
      interactive('social_b/buttonTemplate', { message: 'Hi', buttons: [{ type: 'postback', title: 'Go', payload: 'GO' }] }),
      interactive('social_b/messageTag', { message: 'Your order shipped', tag: 'POST_PURCHASE_UPDATE' }),
      { label: 'typing', presence: 'typing' },
      ...react,
    ],
  },
  {
    family: 'evolution-v2',
    kind: 'engine_b',
    sends: [
      text('text'),
      media('image with caption', 'image/jpeg', { text: 'Look' }),
      media('document with its name', 'application/pdf', { fileName: 'invoice.pdf' }),
      media('audio', 'audio/ogg'),
      media('voice note', 'audio/ogg', { voice: true }),
      interactive('engine_b/quickReply', { ...BUTTONS, buttons: [{ display_text: 'Sales', id: 'sales' }] }),
      interactive('engine_b/ctaUrl', { ...BUTTONS, displayText: 'Open', url: 'https://acme.example/o/1' }),
      interactive('engine_b/ctaCall', { body: { text: 'Talk to us' }, displayText: 'Call', phoneNumber: '+5511987654321' }),
      interactive('engine_b/ctaCopy', { ...BUTTONS, displayText: 'Copy', copyCode: 'PROMO10' }),
      interactive('engine_b/pixButton', { ...PIX, bodyText: 'Pay here' }),
      interactive('engine_b/singleSelect', {
        ...BUTTONS,
        list: { title: 'Options', sections: [{ title: 'Plans', rows: [{ id: 'basic', title: 'Basic', description: 'R$ 10' }] }] },
      }),
      interactive('engine_b/poll', { name: 'Best time?', options: ['Morning', 'Evening'], selectableCount: 1 }),
      { label: 'typing', presence: 'typing' },
      { label: 'paused', presence: 'paused' },
      ...changes,
    ],
  },
  // engine_h: the message changes (its sends are not checked against Evolution v1 yet).
  { family: 'evolution-v1', kind: 'engine_h', sends: changes },
  {
    family: 'uazapi',
    kind: 'engine_c',
    sends: [
      text('text'),
      media('image with caption', 'image/jpeg', { text: 'Look' }),
      media('document with its name', 'application/pdf', { fileName: 'invoice.pdf' }),
      media('voice note, its text after it', 'audio/ogg', { voice: true, text: 'Listen' }),
      interactive('engine_c/button', {
        text: 'How can we help?',
        choices: ['Support|support', 'Site|https://acme.example'],
        footerText: 'Acme',
      }),
      interactive('engine_c/list', { text: 'Catalog', choices: ['[Phones]', 'Smartphones|phones|New models'], listButton: 'See catalog' }),
      interactive('engine_c/poll', { text: 'Best time?', choices: ['Morning', 'Evening'] }),
      interactive('engine_c/carousel', { text: 'Our picks', carousel: [CARD] }),
      interactive('engine_c/pixButton', PIX),
      interactive('engine_c/locationButton', { text: 'Share your location' }),
      interactive('engine_c/requestPayment', {
        amount: 149.9,
        title: 'Order #1001',
        text: 'Thanks',
        itemName: 'Headphones',
        invoiceNumber: 'INV-1001',
        ...PIX,
      }),
      { label: 'typing', presence: 'typing' },
      { label: 'paused', presence: 'paused' },
      ...changes,
    ],
  },
];

let provider: FakeProvider;
beforeAll(async () => {
  provider = await startFakeProvider(() => ({ status: 200, body: ANY_ANSWER }));
});
afterAll(() => provider.close());
beforeEach(() => provider.reset());

// The Graph API's version segment, as META_GRAPH_URL carries it.
const cases = driverCases(() => `${provider.url}/v23.0`);

/** What one send made the driver request. */
async function requestsOf(kind: string, send: Send): Promise<ProviderRequest[]> {
  const c = cases[kind];
  const channel = { ...caseChannel(provider.url, c), engineToken: 'engine-key', marketingMessagesApi: !!send.marketing };
  const driver = c.driver();
  if (send.presence) await driver.sendPresence!({ channel, to: '5511987654321', state: send.presence, replyTo: 'wamid.IN-1' });
  else if (send.change)
    await driver.sendChange!({
      channel,
      to: '5511987654321',
      targetId: 'wamid.TARGET-1',
      targetFromMe: true,
      reference: 'change-1',
      ...send.change,
    });
  else {
    const templateCategory = send.marketing ? 'MARKETING' : undefined;
    await driver.send({ channel, to: '5511987654321', content: send.content!, reference: 'msg-1', templateCategory });
  }
  return provider.requests.splice(0);
}

describe.each(PROVIDERS)('$kind requests against $family', ({ family, kind, sends }) => {
  let spec: ProviderSpec;
  beforeAll(() => {
    spec = loadProviderSpec(family);
  });

  it.each(sends)('$label', async (send) => {
    const requests = await requestsOf(kind, send);
    expect(requests.length).toBeGreaterThan(0);
    for (const req of requests) expect(spec.check(req)).toEqual({ operation: expect.any(String), problems: [] });
    if (send.marketing) expect(requests.map((r) => spec.check(r).operation)).toEqual([expect.stringContaining('marketing_messages')]);
  });
});
