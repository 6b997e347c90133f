import { startFakeProvider, type FakeProvider } from '@convo/test-support';
import { channelOf, contentOf, failure, settingsWith } from '../support/driver-fixtures';
import type { Outbound } from '../../src/drivers/driver';
import { EngineFDriver } from '../../src/drivers/engine-f.driver';

// Z-API answers a send with `{ zaapId, messageId, id }` (docs/messages/imagem.md).
const accepted = () => ({
  status: 200,
  body: { zaapId: '019BC85B8F177B568F393E5D1FDD346A', messageId: '71B2D1A84A1F786E3226', id: '71B2D1A84A1F786E3226' },
});

let zapi: FakeProvider;
const driver = new EngineFDriver(settingsWith(2_000));
const INSTANCE = '/instances/3C01A2B3/token/F0E1D2C3';

beforeAll(async () => {
  zapi = await startFakeProvider(accepted);
});
afterAll(() => zapi.close());
beforeEach(() => zapi.reset());

const channel = (over: Partial<Outbound['channel']> = {}) =>
  channelOf('engine_f', { engineUrl: `${zapi.url}${INSTANCE}`, engineToken: 'account-security-token', ...over });
const send = (content: Outbound['content']) => driver.send({ channel: channel(), to: '5511987654321', content, reference: 'msg-1' });

describe('EngineFDriver (Z-API): sends', () => {
  it('sends a text to POST {instance}/send-text with the Client-Token header and answers messageId', async () => {
    await expect(send(contentOf({ text: 'Hello!' }))).resolves.toEqual({ providerMessageId: '71B2D1A84A1F786E3226' });

    expect(zapi.requests).toHaveLength(1);
    const [req] = zapi.requests;
    expect(req.method).toBe('POST');
    expect(req.url).toBe(`${INSTANCE}/send-text`);
    expect(req.headers['client-token']).toBe('account-security-token');
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.body).toEqual({ phone: '5511987654321', message: 'Hello!' });
  });

  it.each([
    [
      'an image with its caption to send-image',
      { text: 'Look', mediaUrl: 'https://media.example/cat.png', mimeType: 'image/png', fileName: 'cat.png' },
      '/send-image',
      { phone: '5511987654321', image: 'https://media.example/cat.png', caption: 'Look' },
    ],
    [
      'a video with its caption to send-video',
      { text: 'Watch', mediaUrl: 'https://media.example/clip.mp4', mimeType: 'video/mp4', fileName: 'clip.mp4' },
      '/send-video',
      { phone: '5511987654321', video: 'https://media.example/clip.mp4', caption: 'Watch' },
    ],
    [
      'an audio to send-audio',
      { mediaUrl: 'https://media.example/note.ogg', mimeType: 'audio/ogg' },
      '/send-audio',
      { phone: '5511987654321', audio: 'https://media.example/note.ogg' },
    ],
    [
      'a PDF to send-document/pdf with its name',
      { text: 'Invoice', mediaUrl: 'https://media.example/m/42', mimeType: 'application/pdf', fileName: 'invoice.pdf' },
      '/send-document/pdf',
      { phone: '5511987654321', document: 'https://media.example/m/42', fileName: 'invoice.pdf', caption: 'Invoice' },
    ],
    [
      'a nameless spreadsheet to send-document/xlsx',
      { mediaUrl: 'https://media.example/m/43', mimeType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet' },
      '/send-document/xlsx',
      { phone: '5511987654321', document: 'https://media.example/m/43', fileName: 'file.xlsx' },
    ],
  ])('sends %s by its link', async (_label, content, path, body) => {
    await send(contentOf(content));
    expect(zapi.requests.map((r) => ({ method: r.method, url: r.url, body: r.body }))).toEqual([
      { method: 'POST', url: `${INSTANCE}${path}`, body },
    ]);
  });

  it('sends no Client-Token header for a channel without engine token', async () => {
    await driver.send({ channel: channel({ engineToken: '' }), to: '5511987654321', content: contentOf({ text: 'Hi' }), reference: 'r' });
    expect(zapi.requests[0].headers['client-token']).toBeUndefined();
  });

  it("fails with ERR_PROVIDER_FAILED carrying Z-API's error", async () => {
    zapi.answer(() => ({ status: 400, body: { error: 'Instance not found' } }));
    const err = await failure(send(contentOf({ text: 'Hi' })));
    expect(err.code).toBe('ERR_PROVIDER_FAILED');
    expect(err.message).toBe('engine_f refused the message (HTTP 400): Instance not found');
  });

  it('fails with ERR_PROVIDER_FAILED when the answer has no messageId', async () => {
    zapi.answer(() => ({ status: 200, body: { zaapId: '019BC85B8F177B568F393E5D1FDD346A' } }));
    expect((await failure(send(contentOf({ text: 'Hi' })))).message).toBe('engine_f answered without messageId');
  });
});

describe('EngineFDriver (Z-API): checkNumber', () => {
  it('asks GET {instance}/phone-exists/{phone}', async () => {
    zapi.answer(() => ({ status: 200, body: { exists: true, phone: '5511987654321', lid: '81896604192873@lid' } }));
    await expect(driver.checkNumber(channel(), '5511987654321')).resolves.toEqual({ exists: true, networkId: '5511987654321' });
    expect(zapi.requests.map((r) => ({ method: r.method, url: r.url, token: r.headers['client-token'] }))).toEqual([
      { method: 'GET', url: `${INSTANCE}/phone-exists/5511987654321`, token: 'account-security-token' },
    ]);
  });

  it('reads the one-item list older versions answer, with exists as the docs print it', async () => {
    zapi.answer(() => ({ status: 200, body: [{ exists: false }] }));
    await expect(driver.checkNumber(channel(), '5511000000000')).resolves.toEqual({ exists: false, networkId: '' });
    zapi.answer(() => ({ status: 200, body: [{ exists: 'true' }] }));
    await expect(driver.checkNumber(channel(), '5511987654321')).resolves.toEqual({ exists: true, networkId: '5511987654321' });
  });

  it('fails with ERR_PROVIDER_FAILED on an answer without exists', async () => {
    zapi.answer(() => ({ status: 200, body: { value: true } }));
    expect((await failure(driver.checkNumber(channel(), '5511987654321'))).message).toBe(
      'engine_f answered the number check without exists',
    );
  });
});

// Webhook bodies from docs/webhooks/on-message-received.md, on-whatsapp-message-status-changes.md,
// on-webhook-connected.md and on-whatsapp-disconnected.md.
const received = (over: Record<string, unknown> = {}) => ({
  isStatusReply: false,
  senderLid: '81896604192873@lid',
  connectedPhone: '554499999999',
  waitingMessage: false,
  isEdit: false,
  isGroup: false,
  isNewsletter: false,
  instanceId: 'A20DA9C0183A2D35A260F53F5D2B9244',
  messageId: 'A20DA9C0183A2D35A260F53F5D2B9244',
  phone: '5544999999999',
  fromMe: false,
  momment: 1632228638000,
  status: 'RECEIVED',
  chatName: 'name',
  senderPhoto: 'https://',
  senderName: 'Ana',
  participantPhone: null,
  participantLid: null,
  photo: 'https://',
  broadcast: false,
  type: 'ReceivedCallback',
  ...over,
});
const parse = (body: unknown) => driver.parseInbound(channel(), body);

describe('EngineFDriver (Z-API): parseInbound', () => {
  it('reads a text message', () => {
    const body = received({ text: { message: 'teste' } });
    expect(parse(body)).toEqual([
      {
        kind: 'message',
        from: '5544999999999',
        lid: '81896604192873@lid',
        contactName: 'Ana',
        providerMessageId: 'A20DA9C0183A2D35A260F53F5D2B9244',
        replyTo: '',
        timestampMs: 1632228638000,
        messageType: 'text',
        body: 'teste',
        rawJson: JSON.stringify(body),
      },
    ]);
  });

  it.each([
    [
      'an image',
      { image: { mimeType: 'image/jpeg', imageUrl: 'https://z.example/i.jpg', thumbnailUrl: 'https://', caption: 'Foto' } },
      { messageType: 'image', body: 'Foto', mediaUrl: 'https://z.example/i.jpg', mimeType: 'image/jpeg' },
    ],
    [
      'an audio',
      { audio: { audioUrl: 'https://z.example/a.ogg', mimeType: 'audio/ogg; codecs=opus' } },
      { messageType: 'audio', mediaUrl: 'https://z.example/a.ogg', mimeType: 'audio/ogg; codecs=opus' },
    ],
    [
      'a video',
      { video: { videoUrl: 'https://z.example/v.mp4', caption: '', mimeType: 'video/mp4' } },
      { messageType: 'video', mediaUrl: 'https://z.example/v.mp4' },
    ],
    [
      'a document',
      {
        document: {
          documentUrl: 'https://z.example/d.pdf',
          mimeType: 'application/pdf',
          title: 'nome',
          pageCount: 1,
          fileName: 'nome.pdf',
        },
      },
      { messageType: 'document', mediaUrl: 'https://z.example/d.pdf', fileName: 'nome.pdf' },
    ],
    [
      'a sticker',
      { sticker: { stickerUrl: 'https://z.example/s.webp', mimeType: 'image/webp' } },
      { messageType: 'sticker', mediaUrl: 'https://z.example/s.webp' },
    ],
    [
      'a button reply',
      { referenceMessageId: 'A20DA9C0183A2D35A260F53F5D2B9244', buttonsResponseMessage: { buttonId: '1', message: 'Ótimo' } },
      { messageType: 'button', body: '1', replyTo: 'A20DA9C0183A2D35A260F53F5D2B9244' },
    ],
    [
      'a list choice',
      { listResponseMessage: { message: 'Z-API Asas para sua imaginação', title: 'Z-API', selectedRowId: '1' } },
      { messageType: 'interactive', body: '1' },
    ],
    [
      'a location',
      { location: { longitude: -46.63, latitude: -23.55, address: '', url: '' } },
      { messageType: 'location', body: '-23.55,-46.63' },
    ],
  ])('reads %s', (_label, content, expected) => {
    expect(parse(received(content))[0]).toMatchObject(expected);
  });

  // developer.z-api.io "Lid": `phone` is the number or the LID itself; chatLid may be null.
  it('reads a message whose phone is the LID itself under the LID, never as a number', () => {
    const [event] = parse(received({ phone: '65998849469@lid', chatLid: null, senderLid: null, text: { message: 'oi' } }));
    expect(event).toMatchObject({ kind: 'message', from: '', lid: '65998849469@lid', body: 'oi' });
  });

  it('reads the number and the chatLid together', () => {
    const [event] = parse(received({ phone: '554499999999', chatLid: '999999999999999@lid', senderLid: null, text: { message: 'oi' } }));
    expect(event).toMatchObject({ from: '554499999999', lid: '999999999999999@lid' });
  });

  it('reads our own message (fromMe, phone: the contact) as an outgoing one, without the sender name', () => {
    expect(parse(received({ fromMe: true, text: { message: 'x' } }))).toEqual([
      expect.objectContaining({ kind: 'message', fromMe: true, from: '5544999999999', contactName: '', body: 'x' }),
    ]);
  });

  it('reads a reaction on the referenced message, and its removal (value "")', () => {
    const reaction = (value: string, fromMe = false) =>
      received({
        fromMe,
        reaction: {
          value,
          time: 1651878681150,
          reactionBy: '554499999999',
          referencedMessage: { messageId: '3EB0796DC6B777C0C7CD', fromMe: true, phone: '5544999999999' },
        },
      });
    expect(parse(reaction('❤️'))).toEqual([
      expect.objectContaining({
        kind: 'reaction',
        from: '5544999999999',
        targetId: '3EB0796DC6B777C0C7CD',
        body: '❤️',
        fromMe: false,
        timestampMs: 1651878681150,
      }),
    ]);
    expect(parse(reaction('', true))).toEqual([expect.objectContaining({ kind: 'reaction', body: '', fromMe: true })]);
  });

  it('skips groups and status replies', () => {
    expect(parse(received({ isGroup: true, phone: '120363019502650977-group', text: { message: 'x' } }))).toEqual([]);
    expect(parse(received({ isStatusReply: true, text: { message: 'x' } }))).toEqual([]);
  });

  it('turns MessageStatusCallback into a status per id; READ_BY_ME is none', () => {
    const status = (value: string) => ({
      instanceId: 'instance.id',
      status: value,
      ids: ['999999999999999999999', '888'],
      momment: 1632234645000,
      phoneDevice: 0,
      phone: '5544999999999',
      type: 'MessageStatusCallback',
      isGroup: false,
    });
    expect(parse(status('READ'))).toEqual([
      { kind: 'status', providerMessageId: '999999999999999999999', status: 'read', timestampMs: 1632234645000 },
      { kind: 'status', providerMessageId: '888', status: 'read', timestampMs: 1632234645000 },
    ]);
    expect(['SENT', 'RECEIVED', 'PLAYED'].map((s) => parse(status(s))[0].status)).toEqual(['sent', 'delivered', 'read']);
    expect(parse(status('READ_BY_ME'))).toEqual([]);
  });

  it('turns ConnectedCallback and DisconnectedCallback into connection events', () => {
    expect(
      parse({ type: 'ConnectedCallback', connected: true, momment: 26151515154, instanceId: 'instance.id', phone: '5544999999999' }),
    ).toEqual([{ kind: 'connection', connection: 'CONNECTED', error: '' }]);
    expect(parse({ momment: 1580163342, error: 'Device has been disconnected', disconnected: true, type: 'DisconnectedCallback' })).toEqual(
      [{ kind: 'connection', connection: 'DISCONNECTED', error: 'Device has been disconnected' }],
    );
  });

  it('yields no event for callbacks it does not use', () => {
    expect(parse({ type: 'PresenceChatCallback', phone: '5544999999999', status: 'COMPOSING' })).toEqual([]);
    expect(parse({ type: 'DeliveryCallback', phone: '554499999999', zaapId: 'A20D', messageId: 'A20D' })).toEqual([]);
  });
});
