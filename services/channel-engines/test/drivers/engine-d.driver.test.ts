import { startFakeProvider, type FakeProvider } from '@convo/test-support';
import { channelOf, contentOf, failure, settingsWith } from '../support/driver-fixtures';
import type { Outbound } from '../../src/drivers/driver';
import { EngineDDriver } from '../../src/drivers/engine-d.driver';

// WuzAPI answers every send with `{ code, data: { Details, Id, Timestamp }, success }` (API.md).
const sentAs = (id: string) => ({
  status: 200,
  body: { code: 200, data: { Details: 'Sent', Id: id, Timestamp: 1718000000 }, success: true },
});

let wuzapi: FakeProvider;
const driver = new EngineDDriver(settingsWith(2_000));

beforeAll(async () => {
  wuzapi = await startFakeProvider(() => sentAs('90B2F8B13FAC8A9CF6B06E99C7834DC5'));
});
afterAll(() => wuzapi.close());
beforeEach(() => wuzapi.reset());

const channel = (over: Partial<Outbound['channel']> = {}) =>
  channelOf('engine_d', { engineUrl: wuzapi.url, engineToken: 'user-token', ...over });
const send = (content: Outbound['content']) => driver.send({ channel: channel(), to: '5511987654321', content, reference: 'msg-1' });

describe('EngineDDriver (WuzAPI): sends', () => {
  it('sends a text to POST /chat/send/text with the user token in the Token header and answers data.Id', async () => {
    await expect(send(contentOf({ text: 'Hello!' }))).resolves.toEqual({ providerMessageId: '90B2F8B13FAC8A9CF6B06E99C7834DC5' });

    expect(wuzapi.requests).toHaveLength(1);
    const [req] = wuzapi.requests;
    expect(req.method).toBe('POST');
    expect(req.url).toBe('/chat/send/text');
    expect(req.headers.token).toBe('user-token');
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.body).toEqual({ Phone: '5511987654321', Body: 'Hello!' });
  });

  it.each([
    [
      'an image with its caption',
      { text: 'Look', mediaUrl: 'https://media.example/cat.png', mimeType: 'image/png', fileName: 'cat.png' },
      '/chat/send/image',
      { Phone: '5511987654321', Image: 'https://media.example/cat.png', Caption: 'Look', MimeType: 'image/png' },
    ],
    [
      'a video with its caption',
      { text: 'Watch', mediaUrl: 'https://media.example/clip.mp4', mimeType: 'video/mp4', fileName: 'clip.mp4' },
      '/chat/send/video',
      { Phone: '5511987654321', Video: 'https://media.example/clip.mp4', Caption: 'Watch', MimeType: 'video/mp4' },
    ],
    [
      'an Ogg audio as a voice note',
      { mediaUrl: 'https://media.example/note.ogg', mimeType: 'audio/ogg; codecs=opus', fileName: 'note.ogg' },
      '/chat/send/audio',
      { Phone: '5511987654321', Audio: 'https://media.example/note.ogg', mimetype: 'audio/ogg; codecs=opus', ptt: true },
    ],
    [
      'an MP3 as an audio file',
      { mediaUrl: 'https://media.example/song.mp3', mimeType: 'audio/mpeg', fileName: 'song.mp3' },
      '/chat/send/audio',
      { Phone: '5511987654321', Audio: 'https://media.example/song.mp3', mimetype: 'audio/mpeg', ptt: false },
    ],
    [
      'a PDF as a document with its file name',
      { text: 'Invoice', mediaUrl: 'https://media.example/m/42', mimeType: 'application/pdf', fileName: 'invoice.pdf' },
      '/chat/send/document',
      {
        Phone: '5511987654321',
        Document: 'https://media.example/m/42',
        FileName: 'invoice.pdf',
        MimeType: 'application/pdf',
        Caption: 'Invoice',
      },
    ],
    [
      'a document without a name, named after its type',
      { mediaUrl: 'https://media.example/m/43', mimeType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet' },
      '/chat/send/document',
      {
        Phone: '5511987654321',
        Document: 'https://media.example/m/43',
        FileName: 'file.xlsx',
        MimeType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      },
    ],
  ])('sends %s by its link', async (_label, content, url, body) => {
    await send(contentOf(content));
    expect(wuzapi.requests.map((r) => ({ method: r.method, url: r.url, body: r.body }))).toEqual([{ method: 'POST', url, body }]);
  });

  it("fails with ERR_PROVIDER_FAILED carrying WuzAPI's own error text", async () => {
    wuzapi.answer(() => ({ status: 500, body: { code: 500, error: 'no session', success: false } }));
    const err = await failure(send(contentOf({ text: 'Hi' })));
    expect(err.code).toBe('ERR_PROVIDER_FAILED');
    expect(err.message).toBe('engine_d refused the message (HTTP 500): no session');
  });

  it('fails with ERR_PROVIDER_FAILED when the answer has no data.Id', async () => {
    wuzapi.answer(() => ({ status: 200, body: { code: 200, data: { Details: 'Sent' }, success: true } }));
    expect((await failure(send(contentOf({ text: 'Hi' })))).message).toBe('engine_d answered without data.Id');
  });
});

describe('EngineDDriver (WuzAPI): checkNumber', () => {
  it('asks POST /user/check and reports the JID of a number on WhatsApp', async () => {
    wuzapi.answer(() => ({
      status: 200,
      body: {
        code: 200,
        data: { Users: [{ IsInWhatsapp: true, JID: '5511987654321@s.whatsapp.net', Query: '5511987654321', VerifiedName: '' }] },
        success: true,
      },
    }));
    await expect(driver.checkNumber(channel(), '5511987654321')).resolves.toEqual({
      exists: true,
      networkId: '5511987654321@s.whatsapp.net',
    });
    expect(wuzapi.requests.map((r) => ({ method: r.method, url: r.url, token: r.headers.token, body: r.body }))).toEqual([
      { method: 'POST', url: '/user/check', token: 'user-token', body: { Phone: ['5511987654321'] } },
    ]);
  });

  it('reports a number that is not on WhatsApp', async () => {
    wuzapi.answer(() => ({
      status: 200,
      body: { code: 200, data: { Users: [{ IsInWhatsapp: false, JID: '5511000000000@s.whatsapp.net' }] }, success: true },
    }));
    await expect(driver.checkNumber(channel(), '5511000000000')).resolves.toEqual({ exists: false, networkId: '' });
  });

  it('fails with ERR_PROVIDER_FAILED on an answer without IsInWhatsapp', async () => {
    wuzapi.answer(() => ({ status: 200, body: { code: 200, data: {}, success: true } }));
    expect((await failure(driver.checkNumber(channel(), '5511987654321'))).code).toBe('ERR_PROVIDER_FAILED');
  });
});

// Webhook bodies as WuzAPI posts them with WEBHOOK_FORMAT=json: `{ type, event }`, the event being
// whatsmeow's, marshalled by Go (field names as in the Go structs, proto fields as whatsmeow spells them).
const info = (over: Record<string, unknown> = {}) => ({
  Chat: '5511987654321@s.whatsapp.net',
  Sender: '5511987654321@s.whatsapp.net',
  IsFromMe: false,
  IsGroup: false,
  ID: '3EB0C431C26A1916E07A',
  Type: 'text',
  PushName: 'Ana',
  Timestamp: '2024-06-10T12:00:05-03:00',
  ...over,
});
const parse = (body: unknown) => driver.parseInbound(channel(), body);

describe('EngineDDriver (WuzAPI): parseInbound', () => {
  it("reads a reaction and a revoke whose keys whatsmeow spells with ID (waCommon.MessageKey's JSON name)", () => {
    const key = { remoteJID: '5511987654321@s.whatsapp.net', fromMe: true, ID: '3EB0SENT0001' };
    const reaction = { reactionMessage: { key, text: '👍', senderTimestampMS: 1718031800000 } };
    expect(parse({ type: 'Message', event: { Info: info({ ID: '3EB0REACT0001' }), Message: reaction } })).toEqual([
      expect.objectContaining({ kind: 'reaction', from: '5511987654321', fromMe: false, targetId: '3EB0SENT0001', body: '👍' }),
    ]);
    const revoke = { protocolMessage: { key: { ...key, fromMe: false, ID: '3EB0C431C26A1916E07A' }, type: 0 } };
    expect(parse({ type: 'Message', event: { Info: info({ ID: '3EB0REVOKE0001' }), Message: revoke } })).toEqual([
      expect.objectContaining({ kind: 'delete', targetId: '3EB0C431C26A1916E07A', fromMe: false }),
    ]);
  });

  it('reads a text message: sender digits, push name, id and time', () => {
    const body = { type: 'Message', event: { Info: info(), Message: { conversation: 'Oi, tudo bem?' } } };
    expect(parse(body)).toEqual([
      {
        kind: 'message',
        from: '5511987654321',
        lid: '',
        contactName: 'Ana',
        providerMessageId: '3EB0C431C26A1916E07A',
        messageType: 'text',
        body: 'Oi, tudo bem?',
        mediaUrl: '',
        mimeType: '',
        replyTo: '',
        timestampMs: Date.parse('2024-06-10T15:00:05Z'),
        rawJson: JSON.stringify(body),
      },
    ]);
  });

  it('reads a reply (contextInfo.stanzaID as whatsmeow spells it)', () => {
    const [event] = parse({
      type: 'Message',
      event: {
        Info: info(),
        Message: {
          extendedTextMessage: { text: 'Sim', contextInfo: { stanzaID: 'ABCD1234', participant: '5511000000000@s.whatsapp.net' } },
        },
      },
    });
    expect(event).toMatchObject({ messageType: 'text', body: 'Sim', replyTo: 'ABCD1234' });
  });

  it('reads an image with its S3 link, and leaves the base64 copy and the user token out of raw_json', () => {
    const [event] = parse({
      type: 'Message',
      event: {
        Info: info({ Type: 'media', MediaType: 'image' }),
        Message: { imageMessage: { URL: 'https://mmg.whatsapp.net/x.enc', mimetype: 'image/jpeg', caption: 'Foto' } },
      },
      s3: { url: 'https://cdn.example/wuz/3EB0.jpg', key: 'users/1/3EB0.jpg', mimeType: 'image/jpeg' },
      base64: 'AAAA',
      mimeType: 'image/jpeg',
      fileName: '3EB0C431C26A1916E07A.jpg',
      userID: '1',
      instanceName: 'acme',
      token: 'user-token',
    });
    expect(event).toMatchObject({
      messageType: 'image',
      body: 'Foto',
      mediaUrl: 'https://cdn.example/wuz/3EB0.jpg',
      mimeType: 'image/jpeg',
    });
    const raw = JSON.parse(event.rawJson!);
    expect(raw).not.toHaveProperty('base64');
    expect(raw).not.toHaveProperty('token');
    expect(raw).toMatchObject({ type: 'Message', s3: { url: 'https://cdn.example/wuz/3EB0.jpg' } });
  });

  it("reads a list choice as the chosen row's id", () => {
    const [event] = parse({
      type: 'Message',
      event: { Info: info(), Message: { listResponseMessage: { title: 'Plano', singleSelectReply: { selectedRowID: 'plan-gold' } } } },
    });
    expect(event).toMatchObject({ messageType: 'interactive', body: 'plan-gold' });
  });

  it('takes the number from SenderAlt when the chat is addressed by LID, device suffixes dropped', () => {
    const lid = {
      Chat: '123456789012345@lid',
      Sender: '123456789012345:12@lid',
      SenderAlt: '5511987654321:12@s.whatsapp.net',
      AddressingMode: 'lid',
    };
    const [event] = parse({ type: 'Message', event: { Info: info(lid), Message: { conversation: 'Oi' } } });
    expect(event).toMatchObject({ from: '5511987654321', lid: '123456789012345@lid' });
  });

  it('reads a chat addressed by LID without SenderAlt under the LID alone', () => {
    const lid = { Chat: '123456789012345@lid', Sender: '123456789012345@lid', AddressingMode: 'lid' };
    const [event] = parse({ type: 'Message', event: { Info: info(lid), Message: { conversation: 'Oi' } } });
    expect(event).toMatchObject({ kind: 'message', from: '', lid: '123456789012345@lid', body: 'Oi' });
  });

  it('reads a number-addressed chat whose SenderAlt is the LID', () => {
    const [event] = parse({
      type: 'Message',
      event: { Info: info({ SenderAlt: '123456789012345@lid', AddressingMode: 'pn' }), Message: { conversation: 'Oi' } },
    });
    expect(event).toMatchObject({ from: '5511987654321', lid: '123456789012345@lid' });
  });

  it('reads our own message as an outgoing one of the chat (Sender is then the business), and skips group messages', () => {
    const own = info({ IsFromMe: true, Sender: '5511900000000@s.whatsapp.net', SenderAlt: '99999999999999@lid' });
    expect(parse({ type: 'Message', event: { Info: own, Message: { conversation: 'sent from the phone' } } })).toEqual([
      expect.objectContaining({ kind: 'message', fromMe: true, from: '5511987654321', lid: '', body: 'sent from the phone' }),
    ]);
    expect(
      parse({
        type: 'Message',
        event: { Info: info({ Chat: '120363023605733675@g.us', IsGroup: true }), Message: { conversation: 'hi all' } },
      }),
    ).toEqual([]);
  });

  it('turns delivery and read receipts into a status per message id; a read on our own device is none', () => {
    const receipt = (state: string) => ({
      type: 'ReadReceipt',
      state,
      event: {
        Chat: '5511987654321@s.whatsapp.net',
        Sender: '5511987654321@s.whatsapp.net',
        IsFromMe: false,
        MessageIDs: ['M1', 'M2'],
        Timestamp: '2024-06-10T12:01:00-03:00',
        Type: 'read',
      },
    });
    const at = Date.parse('2024-06-10T15:01:00Z');
    expect(parse(receipt('Read'))).toEqual([
      { kind: 'status', providerMessageId: 'M1', status: 'read', timestampMs: at },
      { kind: 'status', providerMessageId: 'M2', status: 'read', timestampMs: at },
    ]);
    expect(parse(receipt('Delivered')).map((e) => e.status)).toEqual(['delivered', 'delivered']);
    expect(parse(receipt('ReadSelf'))).toEqual([]);
  });

  it('turns Connected and LoggedOut into connection events', () => {
    expect(parse({ type: 'Connected', event: {} })).toEqual([{ kind: 'connection', connection: 'CONNECTED', error: '' }]);
    expect(parse({ type: 'LoggedOut', event: { Reason: 401 } })).toEqual([
      { kind: 'connection', connection: 'DISCONNECTED', error: 'LoggedOut' },
    ]);
  });

  it('yields no event for events it does not use', () => {
    expect(parse({ type: 'ChatPresence', event: { State: 'composing' } })).toEqual([]);
  });
});
