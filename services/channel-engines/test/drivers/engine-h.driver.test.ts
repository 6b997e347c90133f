import { startFakeProvider, type FakeProvider } from '@convo/test-support';
import { channelOf, contentOf, failure, settingsWith } from '../support/driver-fixtures';
import type { Outbound } from '../../src/drivers/driver';
import { EngineHDriver } from '../../src/drivers/engine-h.driver';

// Evolution v1 answers a send with 201 and the WAMessage Baileys produced.
const accepted = () => ({
  status: 201,
  body: {
    key: { remoteJid: '5511987654321@s.whatsapp.net', fromMe: true, id: 'BAE5F2EF5C69001E' },
    message: { extendedTextMessage: { text: 'Hello!' } },
    messageTimestamp: '1718031605',
    status: 'PENDING',
  },
});

let evolution: FakeProvider;
const driver = new EngineHDriver(settingsWith(2_000));

beforeAll(async () => {
  evolution = await startFakeProvider(accepted);
});
afterAll(() => evolution.close());
beforeEach(() => evolution.reset());

const channel = (over: Partial<Outbound['channel']> = {}) =>
  channelOf('engine_h', { engineUrl: `${evolution.url}/acme-main`, engineToken: 'evo-v1-key', ...over });
const send = (content: Outbound['content']) => driver.send({ channel: channel(), to: '5511987654321', content, reference: 'msg-1' });

describe('EngineHDriver (Evolution API v1): sends', () => {
  it('sends a text to POST /message/sendText/{instance} as textMessage with the apikey header and answers key.id', async () => {
    await expect(send(contentOf({ text: 'Hello!' }))).resolves.toEqual({ providerMessageId: 'BAE5F2EF5C69001E' });

    expect(evolution.requests).toHaveLength(1);
    const [req] = evolution.requests;
    expect(req.method).toBe('POST');
    expect(req.url).toBe('/message/sendText/acme-main');
    expect(req.headers.apikey).toBe('evo-v1-key');
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.body).toEqual({ number: '5511987654321', textMessage: { text: 'Hello!' } });
  });

  it.each([
    [
      'an image with its caption',
      { text: 'Look', mediaUrl: 'https://media.example/cat.png', mimeType: 'image/png', fileName: 'cat.png' },
      '/message/sendMedia/acme-main',
      {
        mediaMessage: {
          mediatype: 'image',
          mimetype: 'image/png',
          caption: 'Look',
          fileName: 'cat.png',
          media: 'https://media.example/cat.png',
        },
      },
    ],
    [
      'a video',
      { mediaUrl: 'https://media.example/clip.mp4', mimeType: 'video/mp4', fileName: 'clip.mp4' },
      '/message/sendMedia/acme-main',
      { mediaMessage: { mediatype: 'video', mimetype: 'video/mp4', fileName: 'clip.mp4', media: 'https://media.example/clip.mp4' } },
    ],
    [
      'an audio as a WhatsApp voice message',
      { mediaUrl: 'https://media.example/note.ogg', mimeType: 'audio/ogg' },
      '/message/sendWhatsAppAudio/acme-main',
      { audioMessage: { audio: 'https://media.example/note.ogg' } },
    ],
    [
      'a PDF as a document with its name',
      { text: 'Invoice', mediaUrl: 'https://media.example/m/42', mimeType: 'application/pdf', fileName: 'invoice.pdf' },
      '/message/sendMedia/acme-main',
      {
        mediaMessage: {
          mediatype: 'document',
          mimetype: 'application/pdf',
          caption: 'Invoice',
          fileName: 'invoice.pdf',
          media: 'https://media.example/m/42',
        },
      },
    ],
  ])('sends %s by its link', async (_label, content, url, body) => {
    await send(contentOf(content));
    expect(evolution.requests.map((r) => ({ method: r.method, url: r.url, body: r.body }))).toEqual([
      { method: 'POST', url, body: { number: '5511987654321', ...body } },
    ]);
  });

  it("fails with ERR_PROVIDER_FAILED carrying Evolution's reasons (response.message), not its generic error", async () => {
    evolution.answer(() => ({
      status: 400,
      body: {
        status: 400,
        error: 'Bad Request',
        response: { message: [{ exists: false, jid: '5511987654321@s.whatsapp.net', number: '5511987654321' }] },
      },
    }));
    const err = await failure(send(contentOf({ text: 'Hi' })));
    expect(err.code).toBe('ERR_PROVIDER_FAILED');
    expect(err.message).toBe(
      'engine_h refused the message (HTTP 400): {"exists":false,"jid":"5511987654321@s.whatsapp.net","number":"5511987654321"}',
    );
    evolution.answer(() => ({
      status: 404,
      body: { status: 404, error: 'Not Found', response: { message: ['The "acme-main" instance does not exist'] } },
    }));
    expect((await failure(send(contentOf({ text: 'Hi' })))).message).toBe(
      'engine_h refused the message (HTTP 404): The "acme-main" instance does not exist',
    );
  });

  it('fails with ERR_PROVIDER_FAILED when the answer has no key.id', async () => {
    evolution.answer(() => ({ status: 201, body: { status: 'PENDING' } }));
    expect((await failure(send(contentOf({ text: 'Hi' })))).message).toBe('engine_h answered without key.id');
  });
});

describe('EngineHDriver (Evolution API v1): checkNumber', () => {
  it('asks POST /chat/whatsappNumbers/{instance} and reports the JID', async () => {
    evolution.answer(() => ({ status: 200, body: [{ exists: true, jid: '5511987654321@s.whatsapp.net', number: '5511987654321' }] }));
    await expect(driver.checkNumber(channel(), '5511987654321')).resolves.toEqual({
      exists: true,
      networkId: '5511987654321@s.whatsapp.net',
    });
    expect(evolution.requests.map((r) => ({ method: r.method, url: r.url, key: r.headers.apikey, body: r.body }))).toEqual([
      { method: 'POST', url: '/chat/whatsappNumbers/acme-main', key: 'evo-v1-key', body: { numbers: ['5511987654321'] } },
    ]);
  });

  it('reports a number that is not on WhatsApp, and refuses an answer without exists', async () => {
    evolution.answer(() => ({ status: 200, body: [{ exists: false, jid: '5511000000000@s.whatsapp.net', number: '5511000000000' }] }));
    await expect(driver.checkNumber(channel(), '5511000000000')).resolves.toEqual({ exists: false, networkId: '' });
    evolution.answer(() => ({ status: 200, body: [] }));
    expect((await failure(driver.checkNumber(channel(), '5511000000000'))).message).toBe(
      'engine_h answered the number check without exists',
    );
  });
});

// Webhook bodies as Evolution v1 posts them: `{ event, instance, data, destination, date_time, sender, server_url, apikey }`.
const envelope = (event: string, data: unknown) => ({
  event,
  instance: 'acme-main',
  data,
  destination: 'https://hooks.example/webhooks/engine/7',
  date_time: '2024-06-10T12:00:05.123Z',
  sender: '5511900000000@s.whatsapp.net',
  server_url: 'http://evolution:8080',
  apikey: 'B6D711FCDE4D4FD5936544120E713976',
});
const upsert = (over: Record<string, unknown> = {}) =>
  envelope('messages.upsert', {
    key: { remoteJid: '5511987654321@s.whatsapp.net', fromMe: false, id: '3EB0C767D26A1D8B8C5F' },
    pushName: 'Ana',
    message: { conversation: 'Oi, tudo bem?' },
    messageType: 'conversation',
    messageTimestamp: 1718031605,
    owner: 'acme-main',
    source: 'android',
    ...over,
  });
const parse = (body: unknown) => driver.parseInbound(channel(), body);

describe('EngineHDriver (Evolution API v1): parseInbound', () => {
  it('reads a text message', () => {
    const [event] = parse(upsert());
    expect(event).toMatchObject({
      kind: 'message',
      from: '5511987654321',
      contactName: 'Ana',
      providerMessageId: '3EB0C767D26A1D8B8C5F',
      messageType: 'text',
      body: 'Oi, tudo bem?',
      mediaUrl: '',
      replyTo: '',
      timestampMs: 1718031605000,
    });
    expect(JSON.parse(event.rawJson!)).toMatchObject({ key: { id: '3EB0C767D26A1D8B8C5F' } });
  });

  it('reads an image with the MinIO/S3 link Evolution adds, and a reply', () => {
    const [event] = parse(
      upsert({
        messageType: 'imageMessage',
        message: {
          imageMessage: {
            url: 'https://mmg.whatsapp.net/o1/x.enc',
            mimetype: 'image/jpeg',
            caption: 'Foto',
            contextInfo: { stanzaId: 'BAE5F2EF5C69001E', participant: '5511900000000@s.whatsapp.net' },
          },
          mediaUrl: 'https://minio.example/evolution/acme-main/3EB0.jpeg',
        },
      }),
    );
    expect(event).toMatchObject({
      messageType: 'image',
      body: 'Foto',
      mimeType: 'image/jpeg',
      mediaUrl: 'https://minio.example/evolution/acme-main/3EB0.jpeg',
      replyTo: 'BAE5F2EF5C69001E',
    });
  });

  it('reads a chat addressed by LID: the LID from remoteJid, the number from remoteJidAlt when known', () => {
    const key = { remoteJid: '123456789012345@lid', fromMe: false, id: '3EB0C767D26A1D8B8C5F' };
    const [withNumber] = parse(upsert({ key: { ...key, remoteJidAlt: '5511987654321@s.whatsapp.net' } }));
    const [lidOnly] = parse(upsert({ key }));
    expect([withNumber, lidOnly].map((e) => [e.from, e.lid])).toEqual([
      ['5511987654321', '123456789012345@lid'],
      ['', '123456789012345@lid'],
    ]);
  });

  it('accepts the upper-case event spelling (MESSAGES_UPSERT)', () => {
    expect(parse({ ...upsert(), event: 'MESSAGES_UPSERT' })).toHaveLength(1);
  });

  it('reads our own messages as outgoing ones and skips group messages', () => {
    expect(parse(upsert({ key: { remoteJid: '5511987654321@s.whatsapp.net', fromMe: true, id: 'X' } }))).toEqual([
      expect.objectContaining({ kind: 'message', fromMe: true, providerMessageId: 'X' }),
    ]);
    expect(
      parse(upsert({ key: { remoteJid: '120363023605733675@g.us', fromMe: false, id: 'X', participant: '5511987654321@s.whatsapp.net' } })),
    ).toEqual([]);
  });

  it('turns messages.update of our messages into statuses', () => {
    const update = (status: string, fromMe = true) =>
      envelope('messages.update', {
        remoteJid: '5511987654321@s.whatsapp.net',
        fromMe,
        id: 'BAE5F2EF5C69001E',
        status,
        datetime: 1718031700123,
        owner: 'acme-main',
      });
    expect(parse(update('READ'))).toEqual([
      { kind: 'status', providerMessageId: 'BAE5F2EF5C69001E', status: 'read', timestampMs: 1718031700123 },
    ]);
    expect(['SERVER_ACK', 'DELIVERY_ACK', 'PLAYED', 'ERROR'].map((s) => parse(update(s))[0].status)).toEqual([
      'sent',
      'delivered',
      'read',
      'failed',
    ]);
    expect(parse(update('PENDING'))).toEqual([]);
    expect(parse(update('READ', false))).toEqual([]);
  });

  it('turns connection.update open and close into connection events; connecting is none', () => {
    expect(parse(envelope('connection.update', { instance: 'acme-main', state: 'open', statusReason: 200 }))).toEqual([
      { kind: 'connection', connection: 'CONNECTED', error: '' },
    ]);
    expect(parse(envelope('connection.update', { instance: 'acme-main', state: 'close', statusReason: 401 }))).toEqual([
      { kind: 'connection', connection: 'DISCONNECTED', error: '401' },
    ]);
    expect(parse(envelope('connection.update', { instance: 'acme-main', state: 'connecting' }))).toEqual([]);
  });

  it('yields no event for events it does not use', () => {
    expect(parse(envelope('presence.update', { id: '5511987654321@s.whatsapp.net', presences: {} }))).toEqual([]);
    expect(parse(envelope('qrcode.updated', { qrcode: { code: '2@abc' } }))).toEqual([]);
  });
});
