import { META_GRAPH_VERSION } from '@convo/kit/meta-graph';
import { startFakeProvider, type FakeProvider, type ProviderRequest } from '@convo/test-support';
import { channelOf, contentOf, failure, settingsWith } from '../support/driver-fixtures';
import type { Outbound } from '../../src/drivers/driver';
import { SocialDriver, type SocialKind } from '../../src/drivers/social.driver';

const PAGE_ID = '1234567890';
const PSID = '24075368705412345';
const TIMEOUT_MS = 2_000;

// The Send API's answer, with a mid per request; the attachment upload answers an attachment_id.
let sent = 0;
const accepted = (req: ProviderRequest) =>
  req.url.endsWith('/message_attachments')
    ? { status: 200, body: { attachment_id: '1857777774821032' } }
    : { status: 200, body: { recipient_id: req.body.recipient.id, message_id: `m_${++sent}` } };

let graph: FakeProvider;
let messenger: SocialDriver;
let instagram: SocialDriver;

beforeAll(async () => {
  graph = await startFakeProvider(accepted);
  const settings = settingsWith(TIMEOUT_MS, { metaGraphUrl: `${graph.url}/${META_GRAPH_VERSION}` });
  messenger = new SocialDriver('social_b', settings);
  instagram = new SocialDriver('social_a', settings);
});
afterAll(() => graph.close());
beforeEach(() => {
  graph.reset();
  sent = 0;
});

const channel = (kind: SocialKind, over: Partial<Outbound['channel']> = {}) =>
  channelOf(kind, { id: 7, pageId: PAGE_ID, pageToken: 'page-token', ...over });
const send = (driver: SocialDriver, c: Partial<Outbound['content']>, over: Partial<Outbound['channel']> = {}) =>
  driver.send({ channel: channel(driver.kind as SocialKind, over), to: PSID, content: contentOf(c), reference: 'msg-1' });
const interactive = (driver: SocialDriver, type: string, json: unknown, c: Partial<Outbound['content']> = {}) =>
  send(driver, { interactiveType: type, interactiveJson: JSON.stringify(json), ...c });
/** What every Send API body starts with. */
const to = { recipient: { id: PSID }, messaging_type: 'RESPONSE' };
const template = (payload: unknown) => ({ ...to, message: { attachment: { type: 'template', payload } } });

describe.each([
  ['social_b', () => messenger],
  ['social_a', () => instagram],
] as const)('SocialDriver %s: plain messages', (kind, driverOf) => {
  it('sends a text to POST {graph}/{page-id}/messages with the page token and answers message_id', async () => {
    await expect(send(driverOf(), { text: 'Hello!' })).resolves.toEqual({ providerMessageId: 'm_1' });

    expect(graph.requests).toHaveLength(1);
    const [req] = graph.requests;
    expect(req.method).toBe('POST');
    expect(req.url).toBe(`/${META_GRAPH_VERSION}/${PAGE_ID}/messages`);
    expect(req.headers.authorization).toBe('Bearer page-token');
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.body).toEqual({ ...to, message: { text: 'Hello!' } });
  });

  it.each([
    ['image/png', 'image'],
    ['video/mp4', 'video'],
    ['audio/mpeg', 'audio'],
    ['application/pdf', 'file'],
  ])(`sends %s as a reusable %s attachment by URL (${kind})`, async (mimeType, type) => {
    await send(driverOf(), { mediaUrl: 'https://media.example/m/1', mimeType, fileName: 'x' });
    expect(graph.requests.map((r) => r.body)).toEqual([
      { ...to, message: { attachment: { type, payload: { url: 'https://media.example/m/1', is_reusable: true } } } },
    ]);
  });

  it('sends the text of a media message as a second message after the attachment', async () => {
    await expect(send(driverOf(), { text: 'Look', mediaUrl: 'https://media.example/m/1', mimeType: 'image/jpeg' })).resolves.toEqual({
      providerMessageId: 'm_1',
    });
    expect(graph.requests.map((r) => r.body)).toEqual([
      { ...to, message: { attachment: { type: 'image', payload: { url: 'https://media.example/m/1', is_reusable: true } } } },
      { ...to, message: { text: 'Look' } },
    ]);
  });

  it('sends quickReply as text with quick_replies (text and user_phone_number)', async () => {
    await interactive(driverOf(), `${kind}/quickReply`, {
      message: 'Pick a color',
      quickReplies: [{ content_type: 'text', title: 'Red', payload: 'COLOR_RED' }, { content_type: 'user_phone_number' }],
    });
    expect(graph.requests[0].body).toEqual({
      ...to,
      message: {
        text: 'Pick a color',
        quick_replies: [{ content_type: 'text', title: 'Red', payload: 'COLOR_RED' }, { content_type: 'user_phone_number' }],
      },
    });
  });

  it('sends buttonTemplate as the button template with postback and web_url buttons', async () => {
    await interactive(driverOf(), `${kind}/buttonTemplate`, {
      message: 'What next?',
      buttons: [
        { type: 'postback', title: 'Talk to an agent', payload: 'AGENT' },
        { type: 'web_url', title: 'Track order', url: 'https://shop.example/track' },
      ],
    });
    expect(graph.requests[0].body).toEqual(
      template({
        template_type: 'button',
        text: 'What next?',
        buttons: [
          { type: 'postback', title: 'Talk to an agent', payload: 'AGENT' },
          { type: 'web_url', title: 'Track order', url: 'https://shop.example/track' },
        ],
      }),
    );
  });

  it('sends genericTemplate as the generic template, elements with their buttons', async () => {
    await interactive(driverOf(), `${kind}/genericTemplate`, {
      elements: [
        {
          title: 'Blue shirt',
          subtitle: 'R$ 59',
          image_url: 'https://shop.example/blue.png',
          buttons: [{ type: 'postback', title: 'Buy', payload: 'BUY_BLUE' }],
        },
        { title: 'Red shirt' },
      ],
    });
    expect(graph.requests[0].body).toEqual(
      template({
        template_type: 'generic',
        elements: [
          {
            title: 'Blue shirt',
            subtitle: 'R$ 59',
            image_url: 'https://shop.example/blue.png',
            buttons: [{ type: 'postback', title: 'Buy', payload: 'BUY_BLUE' }],
          },
          { title: 'Red shirt' },
        ],
      }),
    );
  });

  it('fails with ERR_PROVIDER_FAILED carrying Graph’s reason and fbtrace_id', async () => {
    graph.answer(() => ({
      status: 400,
      body: {
        error: {
          message: '(#10) This message is sent outside of allowed window.',
          type: 'OAuthException',
          code: 10,
          error_subcode: 2018278,
          fbtrace_id: 'Ftrace1',
        },
      },
    }));
    const err = await failure(send(driverOf(), { text: 'Hi' }));
    expect(err.code).toBe('ERR_PROVIDER_FAILED');
    expect(err.message).toBe(
      `${kind} refused the message (HTTP 400): (#10) This message is sent outside of allowed window. (code 10, subcode 2018278)`,
    );
    expect(err.details).toEqual([
      expect.objectContaining({ provider: kind, status: 400, code: 10, error_subcode: 2018278, fbtrace_id: 'Ftrace1' }),
    ]);
  });
});

describe('SocialDriver social_b (Messenger): Messenger-only templates', () => {
  it('uploads the media of mediaTemplate first, then sends the media template with its attachment_id', async () => {
    await expect(
      interactive(messenger, 'social_b/mediaTemplate', {
        mediaType: 'image',
        mediaUrl: 'https://cdn.example/banner.png',
        buttons: [{ type: 'web_url', title: 'Shop now', url: 'https://shop.example' }],
      }),
    ).resolves.toEqual({ providerMessageId: 'm_1' });

    expect(graph.requests.map((r) => [r.url, r.headers.authorization])).toEqual([
      [`/${META_GRAPH_VERSION}/${PAGE_ID}/message_attachments`, 'Bearer page-token'],
      [`/${META_GRAPH_VERSION}/${PAGE_ID}/messages`, 'Bearer page-token'],
    ]);
    expect(graph.requests[0].body).toEqual({
      message: { attachment: { type: 'image', payload: { url: 'https://cdn.example/banner.png', is_reusable: true } } },
    });
    expect(graph.requests[1].body).toEqual(
      template({
        template_type: 'media',
        elements: [
          {
            media_type: 'image',
            attachment_id: '1857777774821032',
            buttons: [{ type: 'web_url', title: 'Shop now', url: 'https://shop.example' }],
          },
        ],
      }),
    );
  });

  it('uploads the stored copy (content media_url) of a mediaTemplate when the platform made one', async () => {
    await interactive(
      messenger,
      'social_b/mediaTemplate',
      { mediaType: 'video', mediaUrl: 'https://cdn.example/v.mp4' },
      { mediaUrl: 'https://media.example/m/9' },
    );
    expect(graph.requests[0].body.message.attachment).toEqual({
      type: 'video',
      payload: { url: 'https://media.example/m/9', is_reusable: true },
    });
    expect(graph.requests[1].body.message.attachment.payload).toEqual({
      template_type: 'media',
      elements: [{ media_type: 'video', attachment_id: '1857777774821032' }],
    });
  });

  it('sends no template when the upload is refused', async () => {
    graph.answer(() => ({ status: 400, body: { error: { message: 'Failed to fetch the file from the url', code: 100 } } }));
    const err = await failure(
      interactive(messenger, 'social_b/mediaTemplate', { mediaType: 'image', mediaUrl: 'https://cdn.example/x.png' }),
    );
    expect(err.code).toBe('ERR_PROVIDER_FAILED');
    expect(err.message).toContain('Failed to fetch the file');
    expect(graph.requests.map((r) => r.url)).toEqual([`/${META_GRAPH_VERSION}/${PAGE_ID}/message_attachments`]);
  });

  it('sends receiptTemplate as the receipt template', async () => {
    const receipt = {
      recipient_name: 'Ana Souza',
      order_number: 'ORD-1001',
      currency: 'BRL',
      payment_method: 'Pix',
      summary: { total_cost: 118 },
      elements: [{ title: 'Blue shirt', price: 59, quantity: 2 }],
    };
    await interactive(messenger, 'social_b/receiptTemplate', { receipt });
    expect(graph.requests[0].body).toEqual(template({ template_type: 'receipt', ...receipt }));
  });

  it('sends messageTag as a tagged text outside the window', async () => {
    await interactive(messenger, 'social_b/messageTag', { message: 'Your order shipped', tag: 'POST_PURCHASE_UPDATE' });
    expect(graph.requests[0].body).toEqual({
      recipient: { id: PSID },
      messaging_type: 'MESSAGE_TAG',
      tag: 'POST_PURCHASE_UPDATE',
      message: { text: 'Your order shipped' },
    });
  });

  it('sends customerFeedback as the customer_feedback template under the CUSTOMER_FEEDBACK tag', async () => {
    await interactive(messenger, 'social_b/customerFeedback', {
      title: 'Rate your experience',
      subtitle: 'Two quick questions',
      business_privacy_url: 'https://shop.example/privacy',
      expires_in_days: 3,
      feedback_screens: [
        {
          questions: [
            {
              id: 'csat_1',
              type: 'csat',
              title: 'How was our service?',
              score_option: 'five_stars',
              follow_up: { type: 'free_form', placeholder: 'Tell us more' },
            },
          ],
        },
      ],
    });
    expect(graph.requests[0].body).toEqual({
      recipient: { id: PSID },
      messaging_type: 'MESSAGE_TAG',
      tag: 'CUSTOMER_FEEDBACK',
      message: {
        attachment: {
          type: 'template',
          payload: {
            template_type: 'customer_feedback',
            title: 'Rate your experience',
            subtitle: 'Two quick questions',
            button_title: 'Rate us',
            feedback_screens: [
              {
                questions: [
                  {
                    id: 'csat_1',
                    type: 'csat',
                    title: 'How was our service?',
                    score_option: 'five_stars',
                    follow_up: { type: 'free_form', placeholder: 'Tell us more' },
                  },
                ],
              },
            ],
            business_privacy: { url: 'https://shop.example/privacy' },
            expires_in_days: 3,
          },
        },
      },
    });
  });
});

describe('SocialDriver: refusals and failures', () => {
  it.each(['mediaTemplate', 'receiptTemplate', 'messageTag', 'customerFeedback'])(
    'social_a (Instagram) refuses the social_b-only %s, sending nothing',
    async (type) => {
      const err = await failure(interactive(instagram, `social_b/${type}`, { message: 'x', tag: 'ACCOUNT_UPDATE' }));
      expect(err.code).toBe('ERR_VALIDATION');
      expect(err.message).toBe(`${type} exists only on social_b (Messenger); social_a (Instagram) cannot send it`);
      expect(graph.requests).toEqual([]);
    },
  );

  it.each([
    [
      'a quick reply without payload',
      'social_b/quickReply',
      { message: 'Pick', quickReplies: [{ content_type: 'text', title: 'Red' }] },
      'quickReplies[0].payload',
    ],
    [
      'a web_url button without url',
      'social_b/buttonTemplate',
      { message: 'Go', buttons: [{ type: 'web_url', title: 'Site' }] },
      'buttons[0].url',
    ],
    [
      'a card button of another type',
      'social_b/genericTemplate',
      { elements: [{ title: 'A', buttons: [{ type: 'call', title: 'Call' }] }] },
      'elements[0].buttons[0].type',
    ],
    ['a media template of audio', 'social_b/mediaTemplate', { mediaType: 'audio', mediaUrl: 'https://cdn.example/a.mp3' }, 'mediaType'],
    [
      'a feedback without privacy url',
      'social_b/customerFeedback',
      { title: 'Rate', feedback_screens: [{ questions: [{ id: 'q', type: 'csat', title: 'How?' }] }] },
      'business_privacy_url',
    ],
    ['an unknown type', 'social_b/carousel', {}, 'interactive_type'],
    [
      'another social kind’s route',
      'social_a/quickReply',
      { message: 'Pick', quickReplies: [{ content_type: 'user_phone_number' }] },
      'interactive_type',
    ],
  ])('social_b refuses %s with ERR_VALIDATION naming the field, sending nothing', async (_label, type, json, field) => {
    const err = await failure(interactive(messenger, type, json));
    expect(err.code).toBe('ERR_VALIDATION');
    expect(err.details).toEqual([expect.objectContaining({ field })]);
    expect(graph.requests).toEqual([]);
  });

  it('fails with ERR_PROVIDER_FAILED on the timeout when Graph never answers, hanging up on it', async () => {
    graph.answer(() => 'hang');
    const err = await failure(send(messenger, { text: 'Hi' }));
    expect(err.code).toBe('ERR_PROVIDER_FAILED');
    expect(err.message).toMatch(/no answer within 2000 ms/);
    // Only the driver's timeout says "no answer within"; the engine saw the request and the driver hung up on it.
    expect(graph.requests).toHaveLength(1);
    await graph.hangUps();
  });

  it('fails with ERR_PROVIDER_FAILED on a 2xx without message_id', async () => {
    graph.answer(() => ({ status: 200, body: { recipient_id: PSID } }));
    const err = await failure(send(messenger, { text: 'Hi' }));
    expect(err.code).toBe('ERR_PROVIDER_FAILED');
    expect(err.message).toContain('message_id');
  });

  it.each([
    ['pageId', { pageId: '' }],
    ['pageToken', { pageToken: '' }],
  ])('refuses a channel without %s, sending nothing', async (field, over) => {
    const err = await failure(send(messenger, { text: 'Hi' }, over));
    expect(err.code).toBe('ERR_PROVIDER_FAILED');
    expect(err.message).toContain(`has no ${field}`);
    expect(graph.requests).toEqual([]);
  });
});
