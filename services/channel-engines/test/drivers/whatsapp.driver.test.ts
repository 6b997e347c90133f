import { startFakeProvider, type FakeProvider } from '@convo/test-support';
import { channelOf, contentOf, failure, settingsWith } from '../support/driver-fixtures';
import type { Outbound } from '../../src/drivers/driver';
import { WhatsappDriver } from '../../src/drivers/whatsapp.driver';

// The server answers `{ success: true, message: <whatsapp-web.js Message> }`.
const SENT_ID = 'true_5511987654321@c.us_3EB0F1C2D3E4F5A6B7C8';
const accepted = () => ({
  status: 200,
  body: {
    success: true,
    message: {
      _data: { type: 'chat' },
      id: { fromMe: true, remote: '5511987654321@c.us', id: '3EB0F1C2D3E4F5A6B7C8', _serialized: SENT_ID },
      ack: 0,
      body: 'Hello!',
      type: 'chat',
    },
  },
});

let server: FakeProvider;
const driver = new WhatsappDriver(settingsWith(2_000));

beforeAll(async () => {
  server = await startFakeProvider(accepted);
});
afterAll(() => server.close());
beforeEach(() => server.reset());

const channel = (over: Partial<Outbound['channel']> = {}) =>
  channelOf('whatsapp', { engineUrl: `${server.url}/acme`, engineToken: 'api-key', ...over });
const send = (content: Outbound['content']) => driver.send({ channel: channel(), to: '5511987654321', content, reference: 'msg-1' });

describe('WhatsappDriver (whatsapp-web.js REST API): sends', () => {
  it('sends a text to POST /client/sendMessage/{sessionId} as contentType string with x-api-key, answering message.id._serialized', async () => {
    await expect(send(contentOf({ text: 'Hello!' }))).resolves.toEqual({ providerMessageId: SENT_ID });

    expect(server.requests).toHaveLength(1);
    const [req] = server.requests;
    expect(req.method).toBe('POST');
    expect(req.url).toBe('/client/sendMessage/acme');
    expect(req.headers['x-api-key']).toBe('api-key');
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.body).toEqual({ chatId: '5511987654321@c.us', contentType: 'string', content: 'Hello!' });
  });

  it.each([
    [
      'an image with its caption',
      { text: 'Look', mediaUrl: 'https://media.example/cat.png', mimeType: 'image/png', fileName: 'cat.png' },
      { caption: 'Look' },
    ],
    ['a video', { mediaUrl: 'https://media.example/clip.mp4', mimeType: 'video/mp4', fileName: 'clip.mp4' }, {}],
    [
      'an Ogg audio as a voice note',
      { mediaUrl: 'https://media.example/note.ogg', mimeType: 'audio/ogg', fileName: 'note.ogg' },
      { sendAudioAsVoice: true },
    ],
    [
      'a PDF as a document',
      { text: 'Invoice', mediaUrl: 'https://media.example/m/42', mimeType: 'application/pdf', fileName: 'invoice.pdf' },
      { caption: 'Invoice', sendMediaAsDocument: true },
    ],
  ])('sends %s as MessageMediaFromURL', async (_label, content, options) => {
    await send(contentOf(content));
    expect(server.requests.map((r) => ({ method: r.method, url: r.url, body: r.body }))).toEqual([
      {
        method: 'POST',
        url: '/client/sendMessage/acme',
        body: { chatId: '5511987654321@c.us', contentType: 'MessageMediaFromURL', content: content.mediaUrl, options },
      },
    ]);
  });

  it('fails with ERR_PROVIDER_FAILED on a refusal answered with HTTP 200 and success false', async () => {
    server.answer(() => ({ status: 200, body: { success: false, message: '404' } }));
    const err = await failure(send(contentOf({ text: 'Hi' })));
    expect(err.code).toBe('ERR_PROVIDER_FAILED');
    expect(err.message).toBe('whatsapp refused the message: 404');
  });

  it("fails with ERR_PROVIDER_FAILED carrying the server's error on a 500", async () => {
    server.answer(() => ({ status: 500, body: { success: false, error: 'session_not_connected' } }));
    expect((await failure(send(contentOf({ text: 'Hi' })))).message).toBe('whatsapp refused the message (HTTP 500): session_not_connected');
  });
});

describe('WhatsappDriver (whatsapp-web.js REST API): checkNumber', () => {
  it('asks POST /client/getNumberId/{sessionId} and reports the WhatsApp id', async () => {
    server.answer(() => ({
      status: 200,
      body: { success: true, result: { server: 'c.us', user: '5511987654321', _serialized: '5511987654321@c.us' } },
    }));
    await expect(driver.checkNumber(channel(), '5511987654321')).resolves.toEqual({ exists: true, networkId: '5511987654321@c.us' });
    expect(server.requests.map((r) => ({ method: r.method, url: r.url, key: r.headers['x-api-key'], body: r.body }))).toEqual([
      { method: 'POST', url: '/client/getNumberId/acme', key: 'api-key', body: { number: '5511987654321' } },
    ]);
  });

  it('reports a number that is not on WhatsApp (result null), and refuses an unreadable answer', async () => {
    server.answer(() => ({ status: 200, body: { success: true, result: null } }));
    await expect(driver.checkNumber(channel(), '5511000000000')).resolves.toEqual({ exists: false, networkId: '' });
    server.answer(() => ({ status: 200, body: { success: true } }));
    expect((await failure(driver.checkNumber(channel(), '5511000000000'))).code).toBe('ERR_PROVIDER_FAILED');
  });
});

// Webhook bodies as the server's triggerWebhook posts them: `{ dataType, data, sessionId }`, data
// holding the whatsapp-web.js objects the client event gave.
const incoming = (over: Record<string, unknown> = {}) => ({
  dataType: 'message',
  sessionId: 'acme',
  data: {
    message: {
      _data: { notifyName: 'Ana', type: 'chat' },
      id: {
        fromMe: false,
        remote: '5511987654321@c.us',
        id: '3A1B2C3D4E5F60718293',
        _serialized: 'false_5511987654321@c.us_3A1B2C3D4E5F60718293',
      },
      ack: 1,
      hasMedia: false,
      body: 'Oi, tudo bem?',
      type: 'chat',
      timestamp: 1718031605,
      from: '5511987654321@c.us',
      to: '5511900000000@c.us',
      fromMe: false,
      hasQuotedMsg: false,
      ...over,
    },
  },
});
const parse = (body: unknown) => driver.parseInbound(channel(), body);

describe('WhatsappDriver (whatsapp-web.js REST API): parseInbound', () => {
  it('reads a text message', () => {
    const body = incoming();
    expect(parse(body)).toEqual([
      {
        kind: 'message',
        from: '5511987654321',
        lid: '',
        contactName: 'Ana',
        providerMessageId: 'false_5511987654321@c.us_3A1B2C3D4E5F60718293',
        body: 'Oi, tudo bem?',
        messageType: 'text',
        mimeType: '',
        fileName: '',
        replyTo: '',
        timestampMs: 1718031605000,
        rawJson: JSON.stringify(body),
      },
    ]);
  });

  it('reads a document (no link: the server sends files only as base64) and a quoted reply', () => {
    const [event] = parse(
      incoming({
        type: 'document',
        body: 'Contrato',
        hasMedia: true,
        hasQuotedMsg: true,
        _data: { notifyName: 'Ana', mimetype: 'application/pdf', filename: 'contrato.pdf', quotedStanzaID: '3EB0F1C2D3E4F5A6B7C8' },
      }),
    );
    expect(event).toMatchObject({
      messageType: 'document',
      body: 'Contrato',
      mimeType: 'application/pdf',
      fileName: 'contrato.pdf',
      replyTo: '3EB0F1C2D3E4F5A6B7C8',
    });
    expect(event.mediaUrl).toBeUndefined();
  });

  it('reads a chat WhatsApp addresses by LID under the LID alone (the message names no number)', () => {
    const id = {
      fromMe: false,
      remote: '179950657237125@lid',
      id: 'ACCFD0B51ECCFF508B1B64BA46376A15',
      _serialized: 'false_179950657237125@lid_ACCFD0B51ECCFF508B1B64BA46376A15',
    };
    const [event] = parse(incoming({ id, from: '179950657237125@lid' }));
    expect(event).toMatchObject({ kind: 'message', from: '', lid: '179950657237125@lid', body: 'Oi, tudo bem?' });
  });

  it('reads a voice note, a list choice and a location', () => {
    expect(parse(incoming({ type: 'ptt', body: '', hasMedia: true }))[0]).toMatchObject({ messageType: 'audio' });
    expect(parse(incoming({ type: 'list_response', body: 'Gold', selectedRowId: 'plan-gold' }))[0]).toMatchObject({
      messageType: 'interactive',
      body: 'plan-gold',
    });
    expect(
      parse(incoming({ type: 'location', body: '/9j/4AAQ', location: { latitude: -23.55, longitude: -46.63, description: '' } }))[0],
    ).toMatchObject({
      messageType: 'location',
      body: '-23.55,-46.63',
    });
  });

  it('skips group messages', () => {
    expect(parse(incoming({ from: '120363023605733675@g.us', author: '5511987654321@c.us' }))).toEqual([]);
  });

  it('turns message_ack of our messages into statuses', () => {
    const ack = (level: number, fromMe = true) => ({
      dataType: 'message_ack',
      sessionId: 'acme',
      data: {
        message: {
          id: { fromMe, remote: '5511987654321@c.us', id: '3EB0F1C2D3E4F5A6B7C8', _serialized: SENT_ID },
          fromMe,
          timestamp: 1718031700,
          ack: level,
        },
        ack: level,
      },
    });
    expect(parse(ack(2))).toEqual([{ kind: 'status', providerMessageId: SENT_ID, status: 'delivered', timestampMs: 1718031700000 }]);
    expect([1, 3, 4, -1].map((level) => parse(ack(level))[0].status)).toEqual(['sent', 'read', 'read', 'failed']);
    expect(parse(ack(0))).toEqual([]);
    expect(parse(ack(3, false))).toEqual([]);
  });

  it('turns ready and disconnected into connection events', () => {
    expect(parse({ dataType: 'ready', sessionId: 'acme' })).toEqual([{ kind: 'connection', connection: 'CONNECTED', error: '' }]);
    expect(parse({ dataType: 'disconnected', sessionId: 'acme', data: { reason: 'LOGOUT' } })).toEqual([
      { kind: 'connection', connection: 'DISCONNECTED', error: 'LOGOUT' },
    ]);
  });

  it("yields no event for events it does not use (qr, media, the contact's message again as message_create)", () => {
    expect(parse({ dataType: 'qr', sessionId: 'acme', data: { qr: '2@abc' } })).toEqual([]);
    expect(
      parse({ dataType: 'media', sessionId: 'acme', data: { messageMedia: { mimetype: 'image/jpeg', data: 'AAAA' }, message: {} } }),
    ).toEqual([]);
    expect(parse({ ...incoming(), dataType: 'message_create' })).toEqual([]);
  });
});

// The events of the chrishubert/whatsapp-api server's src/sessions.js, each `{ dataType, data,
// sessionId }` with whatsapp-web.js's own objects: message_create `{ message }`, message_reaction
// `{ reaction }` (a Reaction: id, msgId, reaction, timestamp, senderId), message_edit `{ message,
// newBody, prevBody }`, message_revoke_everyone `{ message }` (the revoked Message, type "revoked").
const OWN_ID = 'true_5511987654321@c.us_3EB0C0FFEE0000000003';
const ownKey = { fromMe: true, remote: '5511987654321@c.us', id: '3EB0C0FFEE0000000003', _serialized: OWN_ID };
const ownMessage = (over: Record<string, unknown> = {}) =>
  incoming({ id: ownKey, fromMe: true, from: '5511900000000@c.us', to: '5511987654321@c.us', body: 'Sent from the phone', ...over });

describe('WhatsappDriver (whatsapp-web.js REST API): the whole conversation', () => {
  it('reads message_create of ours as our own message in the chat it went to, without a contact name', () => {
    expect(parse({ ...ownMessage({ _data: { notifyName: 'Loja' } }), dataType: 'message_create' })).toEqual([
      expect.objectContaining({
        kind: 'message',
        fromMe: true,
        from: '5511987654321',
        contactName: '',
        providerMessageId: OWN_ID,
        body: 'Sent from the phone',
      }),
    ]);
  });

  it('reads message_reaction: the contact\'s reaction to our message, and ours removed (reaction "")', () => {
    const reaction = (fromMe: boolean, emoji: string) => ({
      dataType: 'message_reaction',
      sessionId: 'acme',
      data: {
        reaction: {
          id: {
            fromMe,
            remote: '5511987654321@c.us',
            id: '3EB0REACTION0003',
            _serialized: `${fromMe}_5511987654321@c.us_3EB0REACTION0003`,
          },
          orphan: 0,
          timestamp: 1718031800,
          reaction: emoji,
          read: false,
          msgId: ownKey,
          senderId: fromMe ? '5511900000000@c.us' : '5511987654321@c.us',
          ack: 1,
        },
      },
    });
    expect(parse(reaction(false, '❤️'))).toEqual([
      expect.objectContaining({
        kind: 'reaction',
        from: '5511987654321',
        fromMe: false,
        targetId: OWN_ID,
        body: '❤️',
        timestampMs: 1718031800000,
      }),
    ]);
    expect(parse(reaction(true, ''))).toEqual([expect.objectContaining({ kind: 'reaction', fromMe: true, body: '', targetId: OWN_ID })]);
  });

  it('reads message_edit as an edit of the message to newBody, by its sender', () => {
    const body = {
      dataType: 'message_edit',
      sessionId: 'acme',
      data: {
        message: ownMessage({ body: 'Sent from the phone, fixed', _data: { latestEditSenderTimestampMs: 1718031900123 } }).data.message,
        newBody: 'Sent from the phone, fixed',
        prevBody: 'Sent from the phone',
      },
    };
    expect(parse(body)).toEqual([
      expect.objectContaining({
        kind: 'edit',
        from: '5511987654321',
        fromMe: true,
        targetId: OWN_ID,
        body: 'Sent from the phone, fixed',
        timestampMs: 1718031900123,
      }),
    ]);
  });

  it("reads message_revoke_everyone as a deletion of the contact's message", () => {
    const revoked = incoming({ type: 'revoked', body: '', _data: { type: 'revoked', revokeTimestamp: 1718032000 } });
    expect(parse({ ...revoked, dataType: 'message_revoke_everyone' })).toEqual([
      expect.objectContaining({
        kind: 'delete',
        from: '5511987654321',
        fromMe: false,
        targetId: 'false_5511987654321@c.us_3A1B2C3D4E5F60718293',
        timestampMs: 1718032000000,
      }),
    ]);
  });

  it('leaves out reactions, edits and deletions in groups', () => {
    const group = '120363023605733675@g.us';
    const key = { fromMe: false, remote: group, id: 'X', _serialized: `false_${group}_X` };
    expect(parse({ dataType: 'message_reaction', data: { reaction: { id: key, msgId: key, reaction: '👍' } } })).toEqual([]);
    expect(parse({ dataType: 'message_edit', data: { message: { id: key, from: group }, newBody: 'x' } })).toEqual([]);
    expect(parse({ dataType: 'message_revoke_everyone', data: { message: { id: key, from: group } } })).toEqual([]);
  });
});
