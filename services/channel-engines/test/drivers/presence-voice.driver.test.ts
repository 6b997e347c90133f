import { startFakeProvider, type FakeProvider } from '@convo/test-support';
import { contentOf, failure } from '../support/driver-fixtures';
import { ANY_ANSWER, caseChannel, type DriverCase, driverCases } from '../support/driver-cases';
import type { PresenceState } from '../../src/drivers/driver';

// sendPresence (typing / paused) and voice notes, per driver, against one recording fake provider.

let provider: FakeProvider;
beforeAll(async () => {
  provider = await startFakeProvider(() => ({ status: 200, body: ANY_ANSWER }));
});
afterAll(() => provider.close());
beforeEach(() => provider.reset());

const TO = '5511987654321';

const cases = driverCases(() => provider.url);
const channelFor = (c: DriverCase) => caseChannel(provider.url, c);
const presence = (c: DriverCase, state: PresenceState, replyTo = '') =>
  c.driver().sendPresence!({ channel: channelFor(c), to: TO, state, replyTo });
const seen = () => provider.requests.map((r) => ({ url: r.url, body: r.body }));

describe('sendPresence', () => {
  it.each([
    [
      'engine_a',
      '/presence',
      { jid: `${TO}@s.whatsapp.net`, presence: 'composing' },
      '/presence',
      { jid: `${TO}@s.whatsapp.net`, presence: 'paused' },
    ],
    [
      'engine_b',
      '/chat/sendPresence/acme',
      { number: TO, presence: 'composing', delay: 3000 },
      '/chat/sendPresence/acme',
      { number: TO, presence: 'paused', delay: 0 },
    ],
    [
      'engine_c',
      '/message/presence',
      { number: TO, presence: 'composing', delay: 30000 },
      '/message/presence',
      { number: TO, presence: 'paused' },
    ],
    [
      'engine_d',
      '/chat/presence',
      { Phone: TO, State: 'composing', Media: '' },
      '/chat/presence',
      { Phone: TO, State: 'paused', Media: '' },
    ],
    [
      'engine_e',
      '/api/sess/typing',
      { phone: TO, isGroup: false, value: true },
      '/api/sess/typing',
      { phone: TO, isGroup: false, value: false },
    ],
    [
      'engine_g',
      '/api/startTyping',
      { session: 'default', chatId: `${TO}@c.us` },
      '/api/stopTyping',
      { session: 'default', chatId: `${TO}@c.us` },
    ],
    [
      'engine_h',
      '/chat/sendPresence/acme',
      { number: TO, options: { presence: 'composing', delay: 3000 } },
      '/chat/sendPresence/acme',
      { number: TO, options: { presence: 'paused', delay: 0 } },
    ],
    ['whatsapp', '/chat/sendStateTyping/sess', { chatId: `${TO}@c.us` }, '/chat/clearState/sess', { chatId: `${TO}@c.us` }],
    [
      'social_b',
      '/PAGE1/messages',
      { recipient: { id: TO }, sender_action: 'typing_on' },
      '/PAGE1/messages',
      { recipient: { id: TO }, sender_action: 'typing_off' },
    ],
  ])('%s: typing then paused', async (kind, typingUrl, typingBody, pausedUrl, pausedBody) => {
    await expect(presence(cases[kind], 'typing')).resolves.toBe(true);
    await expect(presence(cases[kind], 'paused')).resolves.toBe(true);
    expect(seen()).toEqual([
      { url: typingUrl, body: typingBody },
      { url: pausedUrl, body: pausedBody },
    ]);
  });

  it("waba: typing marks the contact's latest message read with a typing indicator; paused, or no message to answer, sends nothing", async () => {
    await expect(presence(cases.waba, 'typing', 'wamid.IN-1')).resolves.toBe(true);
    expect(provider.requests.map((r) => ({ url: r.url, auth: r.headers.authorization, body: r.body }))).toEqual([
      {
        url: '/1065/messages',
        auth: 'Bearer bm-token',
        body: { messaging_product: 'whatsapp', status: 'read', message_id: 'wamid.IN-1', typing_indicator: { type: 'text' } },
      },
    ]);
    provider.reset();
    await expect(presence(cases.waba, 'paused', 'wamid.IN-1')).resolves.toBe(false);
    await expect(presence(cases.waba, 'typing', '')).resolves.toBe(false);
    expect(provider.requests).toEqual([]);
  });

  it('engine_f (Z-API) has no presence call: the driver has no sendPresence', () => {
    expect(cases.engine_f.driver().sendPresence).toBeUndefined();
  });

  it("reports the engine's refusal as ERR_PROVIDER_FAILED", async () => {
    provider.answer(() => ({ status: 500, body: { message: 'session closed' } }));
    const err = await failure(presence(cases.engine_a, 'typing'));
    expect(err.code).toBe('ERR_PROVIDER_FAILED');
    expect(err.message).toContain('session closed');
  });
});

describe('voice notes', () => {
  const mp3 = contentOf({ mediaUrl: 'https://media.example/note.mp3', mimeType: 'audio/mpeg', fileName: 'note', voice: true });
  const send = (kind: string, content = mp3) =>
    cases[kind].driver().send({ channel: channelFor(cases[kind]), to: TO, content, reference: 'msg-1' });

  it.each([
    [
      'engine_a',
      '/messages',
      {
        jid: `${TO}@s.whatsapp.net`,
        content: { audio: { url: 'https://media.example/note.mp3' }, mimetype: 'audio/mpeg', ptt: true },
        options: { messageId: 'msg-1' },
      },
    ],
    ['engine_b', '/message/sendWhatsAppAudio/acme', { number: TO, audio: 'https://media.example/note.mp3' }],
    ['engine_c', '/send/media', { number: TO, type: 'ptt', file: 'https://media.example/note.mp3' }],
    ['engine_d', '/chat/send/audio', { Phone: TO, Audio: 'https://media.example/note.mp3', mimetype: 'audio/mpeg', ptt: true }],
    ['engine_e', '/api/sess/send-voice', { phone: TO, isGroup: false, path: 'https://media.example/note.mp3' }],
    ['engine_f', '/send-audio', { phone: TO, audio: 'https://media.example/note.mp3' }],
    [
      'engine_g',
      '/api/sendVoice',
      {
        session: 'default',
        chatId: `${TO}@c.us`,
        file: { mimetype: 'audio/mpeg', url: 'https://media.example/note.mp3', filename: 'note' },
        convert: true,
      },
    ],
    ['engine_h', '/message/sendWhatsAppAudio/acme', { number: TO, audioMessage: { audio: 'https://media.example/note.mp3' } }],
    [
      'whatsapp',
      '/client/sendMessage/sess',
      {
        chatId: `${TO}@c.us`,
        contentType: 'MessageMediaFromURL',
        content: 'https://media.example/note.mp3',
        options: { sendAudioAsVoice: true },
      },
    ],
    [
      'waba',
      '/1065/messages',
      {
        messaging_product: 'whatsapp',
        recipient_type: 'individual',
        to: TO,
        type: 'audio',
        audio: { link: 'https://media.example/note.mp3', voice: true },
      },
    ],
  ])('%s sends an audio marked voice as a voice note', async (kind, url, body) => {
    await expect(send(kind)).resolves.toMatchObject({ providerMessageId: expect.any(String) });
    expect(seen()).toEqual([{ url, body }]);
  });

  it('an audio without the voice mark is still sent as before (engine_a: no ptt)', async () => {
    await send('engine_a', { ...mp3, voice: false });
    expect(provider.requests[0].body.content).toEqual({ audio: { url: 'https://media.example/note.mp3' }, mimetype: 'audio/mpeg' });
  });
});
