import { META_GRAPH_VERSION } from '@convo/kit/meta-graph';
import { startFakeProvider, type FakeProvider, type ProviderRequest } from '@convo/test-support';
import { channelOf, contentOf, failure, settingsWith } from '../support/driver-fixtures';
import type { Outbound } from '../../src/drivers/driver';
import { WabaDriver } from '../../src/drivers/waba.driver';

// The Cloud API's success answer, with a wamid per request so tests can tell calls apart.
const accepted = (req: ProviderRequest) => ({
  status: 200,
  body: {
    messaging_product: 'whatsapp',
    contacts: [{ input: req.body.to, wa_id: req.body.to }],
    messages: [{ id: `wamid.${req.body.type}` }],
  },
});

const PHONE_ID = '106540352242922';
const TIMEOUT_MS = 2_000;

let graph: FakeProvider;
let driver: WabaDriver;

beforeAll(async () => {
  graph = await startFakeProvider(accepted);
  driver = new WabaDriver(settingsWith(TIMEOUT_MS, { metaGraphUrl: `${graph.url}/${META_GRAPH_VERSION}` }));
});
afterAll(() => graph.close());
beforeEach(() => graph.reset());

const channel = (over: Partial<Outbound['channel']> = {}) =>
  channelOf('waba', { id: 3, tokenApi: PHONE_ID, bmToken: 'bm-token', wabaId: '102290129340398', ...over });
const send = (c: Partial<Outbound['content']>, ch = channel()) =>
  driver.send({ channel: ch, to: '5511987654321', content: contentOf(c), reference: 'msg-1' });
const interactive = (type: string, json: unknown) => send({ interactiveType: type, interactiveJson: JSON.stringify(json) });
const envelope = { messaging_product: 'whatsapp', recipient_type: 'individual', to: '5511987654321' };

describe('WabaDriver: the request each message becomes', () => {
  it('sends a text to POST {graph}/{phone-number-id}/messages with the business token', async () => {
    await expect(send({ text: 'Hello!' })).resolves.toEqual({ providerMessageId: 'wamid.text' });

    expect(graph.requests).toHaveLength(1);
    const [req] = graph.requests;
    expect(req.method).toBe('POST');
    expect(req.url).toBe(`/${META_GRAPH_VERSION}/${PHONE_ID}/messages`);
    expect(req.headers.authorization).toBe('Bearer bm-token');
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.body).toEqual({ ...envelope, type: 'text', text: { body: 'Hello!' } });
  });

  it('sends an image by link with the text as caption', async () => {
    await send({ text: 'Look', mediaUrl: 'https://media.example/m/1', mimeType: 'image/jpeg', fileName: 'cat.jpg' });
    expect(graph.requests.map((r) => r.body)).toEqual([
      { ...envelope, type: 'image', image: { link: 'https://media.example/m/1', caption: 'Look' } },
    ]);
  });

  it('sends a video by link, without caption when there is no text', async () => {
    await send({ mediaUrl: 'https://media.example/m/2', mimeType: 'video/mp4', fileName: 'v.mp4' });
    expect(graph.requests.map((r) => r.body)).toEqual([{ ...envelope, type: 'video', video: { link: 'https://media.example/m/2' } }]);
  });

  it('sends any other file as a document with its file name and caption', async () => {
    await send({ text: 'Your invoice', mediaUrl: 'https://media.example/m/3', mimeType: 'application/pdf', fileName: 'invoice.pdf' });
    expect(graph.requests.map((r) => r.body)).toEqual([
      { ...envelope, type: 'document', document: { link: 'https://media.example/m/3', caption: 'Your invoice', filename: 'invoice.pdf' } },
    ]);
  });

  it('sends audio without caption; its text follows as a second message and the audio id is the answer', async () => {
    await expect(
      send({ text: 'Listen', mediaUrl: 'https://media.example/m/4', mimeType: 'audio/ogg', fileName: 'a.ogg' }),
    ).resolves.toEqual({
      providerMessageId: 'wamid.audio',
    });
    expect(graph.requests.map((r) => r.body)).toEqual([
      { ...envelope, type: 'audio', audio: { link: 'https://media.example/m/4' } },
      { ...envelope, type: 'text', text: { body: 'Listen' } },
    ]);
  });

  it('sends a WebP image as a sticker', async () => {
    await send({ mediaUrl: 'https://media.example/m/5', mimeType: 'image/webp', fileName: 's.webp' });
    expect(graph.requests.map((r) => r.body)).toEqual([{ ...envelope, type: 'sticker', sticker: { link: 'https://media.example/m/5' } }]);
  });

  it('sends waba/button as reply buttons whose ids are their titles', async () => {
    await interactive('waba/button', { message: 'Confirm your order?', button1: 'Yes', button2: 'No', button3: 'Talk to us' });
    expect(graph.requests[0].url).toBe(`/${META_GRAPH_VERSION}/${PHONE_ID}/messages`);
    expect(graph.requests[0].body).toEqual({
      ...envelope,
      type: 'interactive',
      interactive: {
        type: 'button',
        body: { text: 'Confirm your order?' },
        action: {
          buttons: [
            { type: 'reply', reply: { id: 'Yes', title: 'Yes' } },
            { type: 'reply', reply: { id: 'No', title: 'No' } },
            { type: 'reply', reply: { id: 'Talk to us', title: 'Talk to us' } },
          ],
        },
      },
    });
  });

  it('sends two reply buttons when button3 is absent', async () => {
    await interactive('waba/button', { message: 'Ok?', button1: 'Yes', button2: 'No' });
    expect(graph.requests[0].body.interactive.action.buttons.map((b: any) => b.reply.id)).toEqual(['Yes', 'No']);
  });

  it('sends waba/list as an interactive list with header, footer and row descriptions', async () => {
    await interactive('waba/list', {
      header: 'Menu',
      body: 'Pick a size',
      footer: 'Prices in BRL',
      button_text: 'Sizes',
      sections: [
        {
          title: 'Shirts',
          rows: [
            { id: 'S', title: 'Small', description: '48 cm' },
            { id: 'M', title: 'Medium' },
          ],
        },
        { title: 'Shoes', rows: [{ id: '42', title: 'Size 42' }] },
      ],
    });
    expect(graph.requests[0].body).toEqual({
      ...envelope,
      type: 'interactive',
      interactive: {
        type: 'list',
        header: { type: 'text', text: 'Menu' },
        body: { text: 'Pick a size' },
        footer: { text: 'Prices in BRL' },
        action: {
          button: 'Sizes',
          sections: [
            {
              title: 'Shirts',
              rows: [
                { id: 'S', title: 'Small', description: '48 cm' },
                { id: 'M', title: 'Medium' },
              ],
            },
            { title: 'Shoes', rows: [{ id: '42', title: 'Size 42' }] },
          ],
        },
      },
    });
  });

  it('leaves header and footer out of a list that has none', async () => {
    await interactive('waba/list', { body: 'Pick', button_text: 'Open', sections: [{ title: 'A', rows: [{ id: 'r1', title: 'One' }] }] });
    expect(graph.requests[0].body.interactive).toEqual({
      type: 'list',
      body: { text: 'Pick' },
      action: { button: 'Open', sections: [{ title: 'A', rows: [{ id: 'r1', title: 'One' }] }] },
    });
  });
});

describe('WabaDriver: failures', () => {
  it('fails with ERR_PROVIDER_FAILED carrying Graph’s reason, code, subcode and fbtrace_id', async () => {
    graph.answer(() => ({
      status: 400,
      body: {
        error: {
          message: '(#131047) Re-engagement message',
          type: 'OAuthException',
          code: 131047,
          error_subcode: 2494010,
          error_data: {
            messaging_product: 'whatsapp',
            details: 'Message failed to send because more than 24 hours have passed since the customer last replied to this number.',
          },
          fbtrace_id: 'AbCdEf123',
        },
      },
    }));
    const err = await failure(send({ text: 'Hi' }));

    expect(err.code).toBe('ERR_PROVIDER_FAILED');
    expect(err.message).toBe(
      'waba refused the message (HTTP 400): outside the 24-hour window (re-engagement): only an approved template reaches this contact now: (#131047) Re-engagement message: ' +
        'Message failed to send because more than 24 hours have passed since the customer last replied to this number. (code 131047, subcode 2494010)',
    );
    expect(err.details).toEqual([
      {
        provider: 'waba',
        status: 400,
        message: '(#131047) Re-engagement message',
        type: 'OAuthException',
        code: 131047,
        error_subcode: 2494010,
        fbtrace_id: 'AbCdEf123',
        details: 'Message failed to send because more than 24 hours have passed since the customer last replied to this number.',
      },
    ]);
  });

  const graphError = (status: number, code: number, message: string) => ({
    status,
    body: { error: { message, type: 'OAuthException', code, fbtrace_id: 'T' } },
  });

  it.each([
    [131047, 'outside the 24-hour window'],
    [131026, 'cannot be delivered to this number'],
    [132000, 'wrong number of parameters'],
    [132001, 'does not exist in this language'],
    [132005, 'too long'],
    [132007, 'format policy'],
    [132012, 'does not have the format'],
  ])('reads Graph code %i as a refusal a retry cannot cure, said plainly (%s)', async (code, plainly) => {
    graph.answer(() => graphError(400, code, `(#${code}) Meta's words`));
    const err = await failure(send({ text: 'Hi' }));
    expect(err.message).toContain(plainly);
    expect(err.message).toContain(`(code ${code})`);
    expect((err.details![0] as { transient?: boolean }).transient).toBeUndefined();
  });

  it.each([4, 80007, 130429, 131048, 131056])(
    'reads Graph rate-limit code %i as transient (retried with backoff), even answered with HTTP 400',
    async (code) => {
      graph.answer(() => graphError(400, code, `(#${code}) Rate limit hit`));
      const err = await failure(send({ text: 'Hi' }));
      expect((err.details![0] as { transient?: boolean }).transient).toBe(true);
    },
  );

  it('keeps Retry-After of a rate limit answered 429', async () => {
    graph.answer(() => ({ ...graphError(429, 130429, '(#130429) Rate limit hit'), headers: { 'retry-after': '7' } }));
    const err = await failure(send({ text: 'Hi' }));
    expect(err.details![0]).toMatchObject({ transient: true, retryAfter: '7', code: 130429 });
  });

  it('sends a MARKETING template to POST /{phone-number-id}/marketing_messages on a channel with marketingMessagesApi, the same body as /messages', async () => {
    const template = { name: 'spring_sale', language: { code: 'pt_BR' } };
    const content = contentOf({ interactiveType: 'waba/template', interactiveJson: JSON.stringify(template) });
    const marketing = channel({ marketingMessagesApi: true });
    await expect(
      driver.send({ channel: marketing, to: '5511987654321', content, reference: 'm', templateCategory: 'MARKETING' }),
    ).resolves.toEqual({
      providerMessageId: 'wamid.template',
    });
    await driver.send({ channel: marketing, to: '5511987654321', content, reference: 'u', templateCategory: 'UTILITY' });
    await driver.send({ channel: channel(), to: '5511987654321', content, reference: 'off', templateCategory: 'MARKETING' });
    await driver.send({
      channel: marketing,
      to: '5511987654321',
      content: contentOf({ text: 'Hi' }),
      reference: 't',
      templateCategory: 'MARKETING',
    });
    expect(graph.requests.map((r) => r.url)).toEqual([
      `/${META_GRAPH_VERSION}/${PHONE_ID}/marketing_messages`,
      `/${META_GRAPH_VERSION}/${PHONE_ID}/messages`,
      `/${META_GRAPH_VERSION}/${PHONE_ID}/messages`,
      `/${META_GRAPH_VERSION}/${PHONE_ID}/messages`,
    ]);
    expect(graph.requests[0].body).toEqual({ ...envelope, type: 'template', template });
  });

  it('sends a template as the Cloud API template object', async () => {
    const template = {
      name: 'order_update',
      language: { code: 'pt_BR' },
      components: [{ type: 'body', parameters: [{ type: 'text', text: 'Bia' }] }],
    };
    await expect(interactive('waba/template', template)).resolves.toEqual({ providerMessageId: 'wamid.template' });
    expect(graph.requests.map((r) => r.body)).toEqual([{ ...envelope, type: 'template', template }]);
  });

  it('keeps the raw reason of a refusal that is not a Graph envelope', async () => {
    graph.answer(() => ({ status: 503, body: { message: 'upstream overloaded' } }));
    const err = await failure(send({ text: 'Hi' }));
    expect(err.code).toBe('ERR_PROVIDER_FAILED');
    expect(err.message).toContain('upstream overloaded');
  });

  it('fails with ERR_PROVIDER_FAILED after the timeout when Graph never answers, hanging up on it', async () => {
    graph.answer(() => 'hang');
    const started = Date.now();
    const err = await failure(send({ text: 'Hi' }));
    const elapsed = Date.now() - started;

    expect(err.code).toBe('ERR_PROVIDER_FAILED');
    expect(err.message).toMatch(/no answer within 2000 ms/);
    // Not before the timeout (timers never fire early); how much later depends on the machine's load.
    expect(elapsed).toBeGreaterThanOrEqual(TIMEOUT_MS - 20);
    // Only the driver's timeout says "no answer within"; the engine saw the request and the driver hung up on it.
    expect(graph.requests).toHaveLength(1);
    await graph.hangUps();
  });

  it('fails with ERR_PROVIDER_FAILED on a 2xx without messages[0].id', async () => {
    graph.answer(() => ({ status: 200, body: { messaging_product: 'whatsapp', messages: [] } }));
    const err = await failure(send({ text: 'Hi' }));
    expect(err.code).toBe('ERR_PROVIDER_FAILED');
    expect(err.message).toContain('messages[0].id');
  });

  it('says the audio arrived when the text after it is refused', async () => {
    graph.answer((req) =>
      req.body.type === 'text' ? { status: 400, body: { error: { message: 'Invalid parameter', code: 100 } } } : accepted(req),
    );
    const err = await failure(send({ text: 'Listen', mediaUrl: 'https://media.example/m/4', mimeType: 'audio/ogg' }));
    expect(err.code).toBe('ERR_PROVIDER_FAILED');
    expect(err.message).toContain('Invalid parameter');
    expect(err.message).toContain('delivered as wamid.audio');
  });

  it.each([
    ['tokenAPI', { tokenApi: '' }, 'no tokenAPI'],
    ['bmToken', { bmToken: '' }, 'no bmToken'],
  ])('refuses a channel without %s, sending nothing', async (_label, over, reason) => {
    const err = await failure(send({ text: 'Hi' }, channel(over)));
    expect(err.code).toBe('ERR_PROVIDER_FAILED');
    expect(err.message).toContain(reason);
    expect(graph.requests).toEqual([]);
  });

  it.each([
    ['a button without button2', 'waba/button', { message: 'Ok?', button1: 'Yes' }, 'button2'],
    ['a button without message', 'waba/button', { button1: 'Yes', button2: 'No' }, 'message'],
    ['a list without sections', 'waba/list', { body: 'Pick', button_text: 'Open' }, 'sections'],
    [
      'a list row without id',
      'waba/list',
      { body: 'Pick', button_text: 'Open', sections: [{ title: 'A', rows: [{ title: 'One' }] }] },
      'sections[0].rows[0].id',
    ],
    ['an unknown waba type', 'waba/carousel', {}, 'interactive_type'],
    ['another kind’s type', 'engine_a/quickReply', {}, 'interactive_type'],
  ])('refuses %s with ERR_VALIDATION naming the field, sending nothing', async (_label, type, json, field) => {
    const err = await failure(interactive(type, json));
    expect(err.code).toBe('ERR_VALIDATION');
    expect(err.details).toEqual([expect.objectContaining({ field })]);
    expect(graph.requests).toEqual([]);
  });

  it('refuses a message with neither text nor media', async () => {
    const err = await failure(send({}));
    expect(err.code).toBe('ERR_VALIDATION');
    expect(graph.requests).toEqual([]);
  });
});
