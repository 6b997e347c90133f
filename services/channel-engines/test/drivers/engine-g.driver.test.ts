import { startFakeProvider, type FakeProvider } from '@convo/test-support';
import { channelOf, contentOf, failure, settingsWith } from '../support/driver-fixtures';
import type { Outbound } from '../../src/drivers/driver';
import { EngineGDriver } from '../../src/drivers/engine-g.driver';

// WAHA's send APIs answer each engine's own message; WEBJS (the default engine) answers the
// whatsapp-web.js message, `{ _data, id: { fromMe, remote, id, _serialized }, ... }`, with 201.
const SENT_ID = 'true_5511987654321@c.us_3EB0378E606CA43FEF38D2';
const webjsAnswer = () => ({
  status: 201,
  body: {
    _data: { id: { fromMe: true, remote: '5511987654321@c.us', id: '3EB0378E606CA43FEF38D2', _serialized: SENT_ID }, type: 'chat', ack: 0 },
    id: { fromMe: true, remote: '5511987654321@c.us', id: '3EB0378E606CA43FEF38D2', _serialized: SENT_ID },
    ack: 0,
  },
});

let waha: FakeProvider;
const driver = new EngineGDriver(settingsWith(2_000));

beforeAll(async () => {
  waha = await startFakeProvider(webjsAnswer);
});
afterAll(() => waha.close());
beforeEach(() => waha.reset());

const channel = (over: Partial<Outbound['channel']> = {}) =>
  channelOf('engine_g', { engineUrl: `${waha.url}/default`, engineToken: 'waha-key', ...over });
const send = (content: Outbound['content']) => driver.send({ channel: channel(), to: '5511987654321', content, reference: 'msg-1' });

describe('EngineGDriver (WAHA): sends', () => {
  it('sends a text to POST /api/sendText with the session and chatId in the body and the X-Api-Key header', async () => {
    await expect(send(contentOf({ text: 'Hello!' }))).resolves.toEqual({ providerMessageId: SENT_ID });

    expect(waha.requests).toHaveLength(1);
    const [req] = waha.requests;
    expect(req.method).toBe('POST');
    expect(req.url).toBe('/api/sendText');
    expect(req.headers['x-api-key']).toBe('waha-key');
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.body).toEqual({ session: 'default', chatId: '5511987654321@c.us', text: 'Hello!' });
  });

  it.each([
    [
      'an image with its caption to sendImage',
      { text: 'Look', mediaUrl: 'https://media.example/cat.png', mimeType: 'image/png', fileName: 'cat.png' },
      '/api/sendImage',
      { file: { mimetype: 'image/png', url: 'https://media.example/cat.png', filename: 'cat.png' }, caption: 'Look' },
    ],
    [
      'a video with its caption to sendVideo',
      { text: 'Watch', mediaUrl: 'https://media.example/clip.mp4', mimeType: 'video/mp4', fileName: 'clip.mp4' },
      '/api/sendVideo',
      { file: { mimetype: 'video/mp4', url: 'https://media.example/clip.mp4', filename: 'clip.mp4' }, caption: 'Watch' },
    ],
    [
      'an Ogg/Opus audio to sendVoice',
      { mediaUrl: 'https://media.example/note.ogg', mimeType: 'audio/ogg; codecs=opus', fileName: 'note.ogg' },
      '/api/sendVoice',
      { file: { mimetype: 'audio/ogg; codecs=opus', url: 'https://media.example/note.ogg', filename: 'note.ogg' } },
    ],
    [
      'an MP3 to sendFile (sendVoice takes Opus only)',
      { mediaUrl: 'https://media.example/song.mp3', mimeType: 'audio/mpeg', fileName: 'song.mp3' },
      '/api/sendFile',
      { file: { mimetype: 'audio/mpeg', url: 'https://media.example/song.mp3', filename: 'song.mp3' } },
    ],
    [
      'a PDF with its caption to sendFile',
      { text: 'Invoice', mediaUrl: 'https://media.example/m/42', mimeType: 'application/pdf', fileName: 'invoice.pdf' },
      '/api/sendFile',
      { file: { mimetype: 'application/pdf', url: 'https://media.example/m/42', filename: 'invoice.pdf' }, caption: 'Invoice' },
    ],
  ])('sends %s by its link (file.url)', async (_label, content, url, body) => {
    await send(contentOf(content));
    expect(waha.requests.map((r) => ({ method: r.method, url: r.url, body: r.body }))).toEqual([
      { method: 'POST', url, body: { session: 'default', chatId: '5511987654321@c.us', ...body } },
    ]);
  });

  it("reads the NOWEB engine's answer (Baileys' key) as the serialised id acks use", async () => {
    waha.answer(() => ({
      status: 201,
      body: {
        key: { remoteJid: '5511987654321@s.whatsapp.net', fromMe: true, id: '3EB08A6895830F110A5E4D' },
        message: { extendedTextMessage: { text: 'Hi there!' } },
        messageTimestamp: '1738070128',
        status: 'PENDING',
      },
    }));
    await expect(send(contentOf({ text: 'Hi there!' }))).resolves.toEqual({
      providerMessageId: 'true_5511987654321@c.us_3EB08A6895830F110A5E4D',
    });
  });

  it('reads an id answered as a serialised string', async () => {
    waha.answer(() => ({ status: 201, body: { id: 'true_5511987654321@c.us_AAAAAAAAAAAAAAAAAAAA', fromMe: true, body: 'Hi' } }));
    await expect(send(contentOf({ text: 'Hi' }))).resolves.toEqual({ providerMessageId: 'true_5511987654321@c.us_AAAAAAAAAAAAAAAAAAAA' });
  });

  it('fails with ERR_PROVIDER_FAILED on the empty 201 some WAHA versions answer (no id to track the message by)', async () => {
    waha.answer(() => ({ status: 201 }));
    const err = await failure(send(contentOf({ text: 'Hi' })));
    expect(err.code).toBe('ERR_PROVIDER_FAILED');
    expect(err.message).toContain('engine_g answered without the message id');
  });

  it("fails with ERR_PROVIDER_FAILED carrying WAHA's message", async () => {
    waha.answer(() => ({
      status: 422,
      body: { statusCode: 422, message: 'Session status is not as expected', error: 'Unprocessable Entity' },
    }));
    const err = await failure(send(contentOf({ text: 'Hi' })));
    expect(err.code).toBe('ERR_PROVIDER_FAILED');
    expect(err.message).toBe('engine_g refused the message (HTTP 422): Session status is not as expected');
  });
});

describe('EngineGDriver (WAHA): checkNumber', () => {
  it('asks GET /api/contacts/check-exists with the phone and session', async () => {
    waha.answer(() => ({ status: 200, body: { numberExists: true, chatId: '5511987654321@c.us' } }));
    await expect(driver.checkNumber(channel(), '5511987654321')).resolves.toEqual({ exists: true, networkId: '5511987654321@c.us' });
    expect(waha.requests.map((r) => ({ method: r.method, url: r.url, key: r.headers['x-api-key'] }))).toEqual([
      { method: 'GET', url: '/api/contacts/check-exists?phone=5511987654321&session=default', key: 'waha-key' },
    ]);
  });

  it('reports a number that is not on WhatsApp, and refuses an answer without numberExists', async () => {
    waha.answer(() => ({ status: 200, body: { numberExists: false } }));
    await expect(driver.checkNumber(channel(), '5511000000000')).resolves.toEqual({ exists: false, networkId: '' });
    waha.answer(() => ({ status: 200, body: {} }));
    expect((await failure(driver.checkNumber(channel(), '5511000000000'))).message).toBe(
      'engine_g answered the number check without numberExists',
    );
  });
});

// Webhook bodies from content/docs/how-to/events/index.md (waha-docs).
const messageEvent = (payload: Record<string, unknown>, engine = 'WEBJS') => ({
  id: 'evt_01hrm0q1q8mqy6y4h8k0000000',
  timestamp: 1667561485123,
  event: 'message',
  session: 'default',
  me: { id: '5511900000000@c.us', pushName: 'Acme' },
  payload: {
    id: 'false_5511987654321@c.us_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
    timestamp: 1667561485,
    from: '5511987654321@c.us',
    fromMe: false,
    source: 'app',
    to: '5511900000000@c.us',
    body: 'Hi there!',
    hasMedia: false,
    ack: 1,
    vCards: [],
    _data: { notifyName: 'Ana' },
    ...payload,
  },
  engine,
  environment: { version: '2024.10.1', engine, tier: 'CORE' },
});
const parse = (body: unknown) => driver.parseInbound(channel(), body);

describe('EngineGDriver (WAHA): parseInbound', () => {
  it('reads a text message', () => {
    const body = messageEvent({});
    expect(parse(body)).toEqual([
      {
        kind: 'message',
        from: '5511987654321',
        lid: '',
        contactName: 'Ana',
        providerMessageId: 'false_5511987654321@c.us_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
        body: 'Hi there!',
        messageType: 'text',
        mediaUrl: '',
        mimeType: '',
        fileName: '',
        replyTo: '',
        timestampMs: 1667561485000,
        rawJson: JSON.stringify(body),
      },
    ]);
  });

  it('reads a media message with the link WAHA serves it at, and a reply', () => {
    const [event] = parse(
      messageEvent({
        body: 'Contrato',
        hasMedia: true,
        media: {
          url: 'http://waha:3000/api/files/default/false_5511987654321@c.us_AAAA.pdf',
          mimetype: 'application/pdf',
          filename: 'contrato.pdf',
        },
        replyTo: { id: 'AAAAAAAAAAAAAAAAAAAA', participant: '5511900000000@c.us', body: 'Mande o contrato' },
      }),
    );
    expect(event).toMatchObject({
      messageType: 'document',
      body: 'Contrato',
      mediaUrl: 'http://waha:3000/api/files/default/false_5511987654321@c.us_AAAA.pdf',
      mimeType: 'application/pdf',
      fileName: 'contrato.pdf',
      replyTo: 'AAAAAAAAAAAAAAAAAAAA',
    });
  });

  it("takes the sender's name from NOWEB's pushName and GOWS's Info.PushName", () => {
    expect(parse(messageEvent({ _data: { pushName: 'Bia' } }, 'NOWEB'))[0].contactName).toBe('Bia');
    expect(
      parse(messageEvent({ _data: { Info: { PushName: 'Caio', Chat: '5511987654321@s.whatsapp.net' } } }, 'GOWS'))[0].contactName,
    ).toBe('Caio');
  });

  // In a chat WhatsApp addresses by LID, WAHA's `from` is the LID; the number is in the engine's own
  // `_data` when known: NOWEB's Baileys key, GOWS's whatsmeow MessageInfo. WEBJS names no number.
  const lidChat = { id: 'false_123456789012345@lid_AC73A4448DFAC1A87C12DBA46E0C1A2C', from: '123456789012345@lid' };

  it('reads a NOWEB LID chat with the number from the Baileys key’s remoteJidAlt', () => {
    const key = {
      remoteJid: '123456789012345@lid',
      remoteJidAlt: '5511987654321@s.whatsapp.net',
      fromMe: false,
      id: 'AC73A4448DFAC1A87C12DBA46E0C1A2C',
      addressingMode: 'lid',
    };
    expect(parse(messageEvent({ ...lidChat, _data: { key, pushName: 'Bia' } }, 'NOWEB'))[0]).toMatchObject({
      from: '5511987654321',
      lid: '123456789012345@lid',
    });
  });

  it('reads a GOWS LID chat with the number from Info.SenderAlt', () => {
    const Info = {
      Chat: '123456789012345@lid',
      Sender: '123456789012345@lid',
      SenderAlt: '5511987654321@s.whatsapp.net',
      PushName: 'Caio',
      AddressingMode: 'lid',
    };
    expect(parse(messageEvent({ ...lidChat, _data: { Info } }, 'GOWS'))[0]).toMatchObject({
      from: '5511987654321',
      lid: '123456789012345@lid',
    });
  });

  it('reads a LID chat whose number WAHA does not know under the LID alone', () => {
    expect(parse(messageEvent(lidChat))[0]).toMatchObject({ kind: 'message', from: '', lid: '123456789012345@lid', body: 'Hi there!' });
  });

  it('skips group messages', () => {
    expect(parse(messageEvent({ from: '120363023605733675@g.us', participant: '5511987654321@c.us' }))).toEqual([]);
  });

  it('turns message.ack of our messages into statuses by ackName level', () => {
    const ack = (level: number, fromMe = true) => ({
      event: 'message.ack',
      session: 'default',
      engine: 'WEBJS',
      timestamp: 1667561490000,
      payload: {
        id: 'true_11111111111@c.us_4CC5EDD64BC22EBA6D639F2AF571346C',
        from: '11111111111@c.us',
        participant: null,
        fromMe,
        ack: level,
        ackName: 'READ',
      },
    });
    expect(parse(ack(3))).toEqual([
      {
        kind: 'status',
        providerMessageId: 'true_11111111111@c.us_4CC5EDD64BC22EBA6D639F2AF571346C',
        status: 'read',
        timestampMs: 1667561490000,
      },
    ]);
    expect([1, 2, 4, -1].map((level) => parse(ack(level))[0].status)).toEqual(['sent', 'delivered', 'read', 'failed']);
    expect(parse(ack(0))).toEqual([]);
    expect(parse(ack(3, false))).toEqual([]);
  });

  it('turns session.status WORKING and FAILED into connection events; SCAN_QR_CODE is none', () => {
    const status = (value: string) => ({
      event: 'session.status',
      session: 'default',
      me: null,
      payload: { status: value, statuses: [], data: null },
      engine: 'WEBJS',
    });
    expect(parse(status('WORKING'))).toEqual([{ kind: 'connection', connection: 'CONNECTED', error: '' }]);
    expect(parse(status('FAILED'))).toEqual([{ kind: 'connection', connection: 'DISCONNECTED', error: 'FAILED' }]);
    expect(parse(status('SCAN_QR_CODE'))).toEqual([]);
  });

  it("yields no event for events it does not use (presence.update, the contact's messages again as message.any)", () => {
    expect(parse({ ...messageEvent({}), event: 'message.any' })).toEqual([]);
    expect(parse({ event: 'presence.update', session: 'default', payload: { id: '5511987654321@c.us', presences: [] } })).toEqual([]);
  });
});

// WAHA's own structures (src/structures/webhooks.dto.ts, responses.dto.ts; the message.reaction
// example of its events docs): message.any carries ours too, message.reaction a WAMessageReaction,
// message.revoked `{ before, after }`.
describe('EngineGDriver (WAHA): the whole conversation', () => {
  const OWN = 'true_5511987654321@c.us_3EB0C0FFEE0000000002';

  it('reads message.any of ours as our own message in the chat it went to, the business left out of the contact', () => {
    const own = {
      ...messageEvent(
        {
          id: OWN,
          from: '5511900000000@c.us',
          to: '5511987654321@c.us',
          fromMe: true,
          body: 'Sent from the phone',
          _data: { key: { remoteJid: '5511987654321@s.whatsapp.net', fromMe: true, id: '3EB0C0FFEE0000000002' }, pushName: 'Acme' },
        },
        'NOWEB',
      ),
      event: 'message.any',
    };
    expect(parse(own)).toEqual([
      expect.objectContaining({
        kind: 'message',
        fromMe: true,
        from: '5511987654321',
        contactName: '',
        providerMessageId: OWN,
        body: 'Sent from the phone',
      }),
    ]);
  });

  it('reads message.reaction: the contact\'s reaction to our message, and ours removed (text "")', () => {
    const reaction = (fromMe: boolean, text: string) => ({
      event: 'message.reaction',
      session: 'default',
      me: { id: '5511900000000@c.us', pushName: 'Acme' },
      payload: {
        id: `${fromMe}_5511987654321@c.us_3EB0REACTION0002`,
        from: fromMe ? '5511900000000@c.us' : '5511987654321@c.us',
        fromMe,
        participant: fromMe ? '5511900000000@c.us' : '5511987654321@c.us',
        to: fromMe ? '5511987654321@c.us' : '5511900000000@c.us',
        timestamp: 1710481111.853,
        reaction: { text, messageId: OWN },
      },
      engine: 'WEBJS',
    });
    expect(parse(reaction(false, '🙏'))).toEqual([
      expect.objectContaining({
        kind: 'reaction',
        from: '5511987654321',
        fromMe: false,
        targetId: OWN,
        body: '🙏',
        timestampMs: 1710481111853,
      }),
    ]);
    expect(parse(reaction(true, ''))).toEqual([
      expect.objectContaining({ kind: 'reaction', fromMe: true, body: '', from: '5511987654321' }),
    ]);
  });

  it('reads message.revoked as a deletion of the message before it was revoked, by its sender', () => {
    const before = messageEvent({}).payload;
    const body = {
      event: 'message.revoked',
      session: 'default',
      payload: { before, after: { ...before, body: '', type: 'revoked', timestamp: 1667561500 } },
      engine: 'WEBJS',
    };
    expect(parse(body)).toEqual([
      expect.objectContaining({
        kind: 'delete',
        from: '5511987654321',
        fromMe: false,
        targetId: 'false_5511987654321@c.us_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
        timestampMs: 1667561500000,
      }),
    ]);
    const ours = { ...before, id: OWN, fromMe: true, from: '5511900000000@c.us', to: '5511987654321@c.us' };
    expect(parse({ ...body, payload: { after: ours } })).toEqual([
      expect.objectContaining({ kind: 'delete', fromMe: true, targetId: OWN }),
    ]);
  });

  it('leaves out reactions and deletions in groups', () => {
    const group = '120363023605733675@g.us';
    expect(parse({ event: 'message.reaction', payload: { from: group, fromMe: false, reaction: { text: '👍', messageId: 'x' } } })).toEqual(
      [],
    );
    expect(parse({ event: 'message.revoked', payload: { before: { id: 'y', from: group, fromMe: false } } })).toEqual([]);
  });
});
