import { startFakeProvider, type FakeProvider } from '@convo/test-support';
import { contentOf, failure, interactiveContent } from '../support/driver-fixtures';
import { ANY_ANSWER, caseChannel, type DriverCase, driverCases } from '../support/driver-cases';
import type { Outbound } from '../../src/drivers/driver';

// Where each driver sends a contact known by something other than a phone number: a LID on the
// unofficial engines (its `<digits>@lid` JID in the engine's chat field), a business-scoped user id
// on the Cloud API (`recipient`, never `to`). What the fake provider on loopback received is the proof.

let provider: FakeProvider;
beforeAll(async () => {
  provider = await startFakeProvider(() => ({ status: 200, body: ANY_ANSWER }));
});
afterAll(() => provider.close());
beforeEach(() => provider.reset());

const LID = '123456789012345@lid';
const BSUID = 'BR.13491208655302741918';
const PARENT_BSUID = 'BR.ENT.11815799212886844830';

const cases = driverCases(() => provider.url);
const send = (c: DriverCase, to: string, content: Outbound['content'] = contentOf({ text: 'Hi' })) =>
  c.driver().send({ channel: caseChannel(provider.url, c), to, content, reference: 'msg-1' });
const typing = (c: DriverCase, to: string) =>
  c.driver().sendPresence!({ channel: caseChannel(provider.url, c), to, state: 'typing', replyTo: 'wamid.IN-1' });
const seen = () => provider.requests.map((r) => ({ url: r.url, body: r.body }));

const ENGINES = ['engine_a', 'engine_b', 'engine_c', 'engine_d', 'engine_e', 'engine_f', 'engine_g', 'engine_h', 'whatsapp'];

describe('unofficial engines: a contact known by its LID', () => {
  it.each([
    ['engine_a', '/messages', { jid: LID, content: { text: 'Hi' }, options: { messageId: 'msg-1' } }],
    ['engine_b', '/message/sendText/acme', { number: LID, text: 'Hi' }],
    ['engine_c', '/send/text', { number: LID, text: 'Hi' }],
    ['engine_d', '/chat/send/text', { Phone: LID, Body: 'Hi' }],
    ['engine_e', '/api/sess/send-message', { phone: '123456789012345', isGroup: false, isLid: true, message: 'Hi' }],
    ['engine_f', '/send-text', { phone: LID, message: 'Hi' }],
    ['engine_g', '/api/sendText', { session: 'default', chatId: LID, text: 'Hi' }],
    ['engine_h', '/message/sendText/acme', { number: LID, textMessage: { text: 'Hi' } }],
    ['whatsapp', '/client/sendMessage/sess', { chatId: LID, contentType: 'string', content: 'Hi' }],
  ])('%s sends a text to the LID’s own JID', async (kind, url, body) => {
    await expect(send(cases[kind], LID)).resolves.toEqual({ providerMessageId: expect.any(String) });
    expect(seen()).toEqual([{ url, body }]);
  });

  it('engine_b sends an interactive message to the LID’s JID too', async () => {
    await send(cases.engine_b, LID, interactiveContent('engine_b/poll', { name: 'When?', options: ['Morning', 'Evening'] }));
    expect(seen()).toEqual([
      { url: '/message/sendPoll/acme', body: { number: LID, name: 'When?', selectableCount: 1, values: ['Morning', 'Evening'] } },
    ]);
  });

  it.each([
    ['engine_a', '/presence', { jid: LID, presence: 'composing' }],
    ['engine_b', '/chat/sendPresence/acme', { number: LID, presence: 'composing', delay: 3000 }],
    ['engine_c', '/message/presence', { number: LID, presence: 'composing', delay: 30000 }],
    ['engine_d', '/chat/presence', { Phone: LID, State: 'composing', Media: '' }],
    ['engine_e', '/api/sess/typing', { phone: '123456789012345', isGroup: false, isLid: true, value: true }],
    ['engine_g', '/api/startTyping', { session: 'default', chatId: LID }],
    ['engine_h', '/chat/sendPresence/acme', { number: LID, options: { presence: 'composing', delay: 3000 } }],
    ['whatsapp', '/chat/sendStateTyping/sess', { chatId: LID }],
  ])('%s shows typing in the LID’s chat', async (kind, url, body) => {
    await expect(typing(cases[kind], LID)).resolves.toBe(true);
    expect(seen()).toEqual([{ url, body }]);
  });

  it.each(ENGINES.flatMap((kind) => [BSUID, PARENT_BSUID].map((to) => [kind, to])))(
    '%s refuses %s (a BSUID of the official API) before any call',
    async (kind, to) => {
      const err = await failure(send(cases[kind], to));
      expect(err.code).toBe('ERR_VALIDATION');
      expect(err.details).toEqual([expect.objectContaining({ field: 'to' })]);
      if (cases[kind].driver().sendPresence) expect((await failure(typing(cases[kind], to))).code).toBe('ERR_VALIDATION');
      expect(provider.requests).toEqual([]);
    },
  );
});

describe('waba: a contact known by its business-scoped user id', () => {
  const envelope = { messaging_product: 'whatsapp', recipient_type: 'individual' };

  it.each([
    ['a BSUID', BSUID],
    ['a parent BSUID', PARENT_BSUID],
  ])('sends to %s as recipient, with no to', async (_label, to) => {
    await send(cases.waba, to);
    expect(seen()).toEqual([{ url: '/1065/messages', body: { ...envelope, recipient: to, type: 'text', text: { body: 'Hi' } } }]);
    expect(provider.requests[0].body).not.toHaveProperty('to');
  });

  it('sends a template and reply buttons to a BSUID as recipient', async () => {
    const template = {
      name: 'order_update',
      language: { code: 'pt_BR' },
      components: [{ type: 'body', parameters: [{ type: 'text', text: '42' }] }],
    };
    await send(cases.waba, BSUID, interactiveContent('waba/template', template));
    await send(cases.waba, BSUID, interactiveContent('waba/button', { message: 'Confirm?', button1: 'Yes', button2: 'No' }));
    expect(provider.requests.map((r) => [r.body.recipient, r.body.to, r.body.type])).toEqual([
      [BSUID, undefined, 'template'],
      [BSUID, undefined, 'interactive'],
    ]);
  });

  it('sends both messages of an audio with a text to the BSUID', async () => {
    await send(cases.waba, BSUID, contentOf({ text: 'Listen', mediaUrl: 'https://media.example/a.ogg', mimeType: 'audio/ogg' }));
    expect(provider.requests.map((r) => [r.body.recipient, r.body.to, r.body.type])).toEqual([
      [BSUID, undefined, 'audio'],
      [BSUID, undefined, 'text'],
    ]);
  });

  it('still sends a phone number as to', async () => {
    await send(cases.waba, '5511987654321');
    expect(seen()).toEqual([{ url: '/1065/messages', body: { ...envelope, to: '5511987654321', type: 'text', text: { body: 'Hi' } } }]);
  });

  it('refuses a LID (the unofficial engines’ id) before any call, for a send and for typing', async () => {
    const err = await failure(send(cases.waba, LID));
    expect(err.code).toBe('ERR_VALIDATION');
    expect(err.details).toEqual([expect.objectContaining({ field: 'to' })]);
    expect((await failure(typing(cases.waba, LID))).code).toBe('ERR_VALIDATION');
    expect(provider.requests).toEqual([]);
  });
});
