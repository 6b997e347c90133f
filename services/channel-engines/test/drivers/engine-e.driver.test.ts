import { startFakeProvider, type FakeProvider } from '@convo/test-support';
import { channelOf, contentOf, failure, settingsWith } from '../support/driver-fixtures';
import type { Outbound } from '../../src/drivers/driver';
import { EngineEDriver } from '../../src/drivers/engine-e.driver';

// WPPConnect answers a send with 201 `{ status: "success", response: [<message per phone>], mapper }`.
const SENT_ID = 'true_5511987654321@c.us_3EB0A9E6C5F1D2B3A4C5';
const accepted = () => ({
  status: 201,
  body: { status: 'success', response: [{ id: SENT_ID, ack: 0, from: '5511900000000@c.us' }], mapper: 'return' },
});

let wpp: FakeProvider;
const driver = new EngineEDriver(settingsWith(2_000));

beforeAll(async () => {
  wpp = await startFakeProvider(accepted);
});
afterAll(() => wpp.close());
beforeEach(() => wpp.reset());

const channel = (over: Partial<Outbound['channel']> = {}) =>
  channelOf('engine_e', { engineUrl: `${wpp.url}/NERDWHATS_AMERICA`, engineToken: 'session-bearer', ...over });
const send = (content: Outbound['content']) => driver.send({ channel: channel(), to: '5511987654321', content, reference: 'msg-1' });

describe('EngineEDriver (WPPConnect Server): sends', () => {
  it('sends a text to POST /api/{session}/send-message with the session bearer token and answers response[0].id', async () => {
    await expect(send(contentOf({ text: 'Hello!' }))).resolves.toEqual({ providerMessageId: SENT_ID });

    expect(wpp.requests).toHaveLength(1);
    const [req] = wpp.requests;
    expect(req.method).toBe('POST');
    expect(req.url).toBe('/api/NERDWHATS_AMERICA/send-message');
    expect(req.headers.authorization).toBe('Bearer session-bearer');
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.body).toEqual({ phone: '5511987654321', isGroup: false, message: 'Hello!' });
  });

  it.each([
    [
      'an image with its caption to send-image',
      { text: 'Look', mediaUrl: 'https://media.example/cat.png', mimeType: 'image/png', fileName: 'cat.png' },
      '/api/NERDWHATS_AMERICA/send-image',
      { phone: '5511987654321', isGroup: false, path: 'https://media.example/cat.png', filename: 'cat.png', caption: 'Look' },
    ],
    [
      'a video to send-file',
      { text: 'Watch', mediaUrl: 'https://media.example/clip.mp4', mimeType: 'video/mp4', fileName: 'clip.mp4' },
      '/api/NERDWHATS_AMERICA/send-file',
      { phone: '5511987654321', isGroup: false, path: 'https://media.example/clip.mp4', filename: 'clip.mp4', caption: 'Watch' },
    ],
    [
      'an audio as a voice message to send-voice',
      { mediaUrl: 'https://media.example/note.ogg', mimeType: 'audio/ogg', fileName: 'note.ogg' },
      '/api/NERDWHATS_AMERICA/send-voice',
      { phone: '5511987654321', isGroup: false, path: 'https://media.example/note.ogg' },
    ],
    [
      'a PDF to send-file with its name',
      { mediaUrl: 'https://media.example/m/42', mimeType: 'application/pdf', fileName: 'invoice.pdf' },
      '/api/NERDWHATS_AMERICA/send-file',
      { phone: '5511987654321', isGroup: false, path: 'https://media.example/m/42', filename: 'invoice.pdf' },
    ],
  ])('sends %s by its link (path)', async (_label, content, url, body) => {
    await send(contentOf(content));
    expect(wpp.requests.map((r) => ({ method: r.method, url: r.url, body: r.body }))).toEqual([{ method: 'POST', url, body }]);
  });

  it('reads an id answered as an object ({ _serialized })', async () => {
    wpp.answer(() => ({ status: 201, body: { status: 'success', response: [{ id: { fromMe: true, _serialized: SENT_ID } }] } }));
    await expect(send(contentOf({ text: 'Hi' }))).resolves.toEqual({ providerMessageId: SENT_ID });
  });

  it("fails with ERR_PROVIDER_FAILED carrying WPPConnect's message", async () => {
    wpp.answer(() => ({ status: 500, body: { status: 'Error', message: 'Error sending the message.', error: {} } }));
    const err = await failure(send(contentOf({ text: 'Hi' })));
    expect(err.code).toBe('ERR_PROVIDER_FAILED');
    expect(err.message).toBe('engine_e refused the message (HTTP 500): Error sending the message.');
  });

  it('fails with ERR_PROVIDER_FAILED when the answer lists no message', async () => {
    wpp.answer(() => ({ status: 201, body: { status: 'success', response: [] } }));
    expect((await failure(send(contentOf({ text: 'Hi' })))).message).toBe('engine_e answered without response[0].id');
  });
});

describe('EngineEDriver (WPPConnect Server): checkNumber', () => {
  it('asks GET /api/{session}/check-number-status/{phone} and reports the WhatsApp id', async () => {
    wpp.answer(() => ({
      status: 200,
      body: {
        status: 'success',
        response: { id: { server: 'c.us', user: '5511987654321', _serialized: '5511987654321@c.us' }, status: 200, numberExists: true },
      },
    }));
    await expect(driver.checkNumber(channel(), '5511987654321')).resolves.toEqual({ exists: true, networkId: '5511987654321@c.us' });
    expect(wpp.requests.map((r) => ({ method: r.method, url: r.url, auth: r.headers.authorization }))).toEqual([
      { method: 'GET', url: '/api/NERDWHATS_AMERICA/check-number-status/5511987654321', auth: 'Bearer session-bearer' },
    ]);
  });

  it('reports a number that is not on WhatsApp', async () => {
    wpp.answer(() => ({
      status: 200,
      body: { status: 'success', response: { id: { _serialized: '5511000000000@c.us' }, status: 404, numberExists: false } },
    }));
    await expect(driver.checkNumber(channel(), '5511000000000')).resolves.toEqual({ exists: false, networkId: '' });
  });

  it('fails with ERR_PROVIDER_FAILED when the check is refused or unreadable', async () => {
    wpp.answer(() => ({ status: 500, body: { status: 'error', message: 'Error on check number status' } }));
    expect((await failure(driver.checkNumber(channel(), '5511987654321'))).message).toBe(
      'engine_e refused the request (HTTP 500): Error on check number status',
    );
    wpp.answer(() => ({ status: 200, body: { status: 'success' } }));
    expect((await failure(driver.checkNumber(channel(), '5511987654321'))).code).toBe('ERR_PROVIDER_FAILED');
  });
});

// Webhook bodies as callWebHook posts them: `{ event, session, ...<the WA-JS object> }`.
const onmessage = (over: Record<string, unknown> = {}) => ({
  event: 'onmessage',
  session: 'NERDWHATS_AMERICA',
  id: 'false_5511987654321@c.us_3EB0B4C5A4E3B8C7D6E5',
  body: 'Olá, quero um orçamento',
  type: 'chat',
  t: 1718031605,
  notifyName: 'Ana',
  from: '5511987654321@c.us',
  to: '5511900000000@c.us',
  self: 'in',
  ack: 1,
  isNewMsg: true,
  sender: { id: '5511987654321@c.us', pushname: 'Ana', type: 'in', isBusiness: false },
  fromMe: false,
  isGroupMsg: false,
  chatId: '5511987654321@c.us',
  ...over,
});
const parse = (body: unknown) => driver.parseInbound(channel(), body);

describe('EngineEDriver (WPPConnect Server): parseInbound', () => {
  it('reads a text message', () => {
    const body = onmessage();
    expect(parse(body)).toEqual([
      {
        kind: 'message',
        from: '5511987654321',
        lid: '',
        contactName: 'Ana',
        providerMessageId: 'false_5511987654321@c.us_3EB0B4C5A4E3B8C7D6E5',
        body: 'Olá, quero um orçamento',
        messageType: 'text',
        mediaUrl: '',
        mimeType: '',
        fileName: '',
        replyTo: '',
        timestampMs: 1718031605000,
        rawJson: JSON.stringify(body),
      },
    ]);
  });

  it('reads an image with its caption and S3 link (webhook.uploadS3), never its base64 body as text', () => {
    const [event] = parse(
      onmessage({
        type: 'image',
        body: '/9j/4AAQSkZJRg...',
        caption: 'Foto',
        mimetype: 'image/jpeg',
        fileUrl: 'https://session.s3.amazonaws.com/ab12.jpeg',
        quotedMsgId: 'true_5511987654321@c.us_3EB0QUOTED',
      }),
    );
    expect(event).toMatchObject({
      messageType: 'image',
      body: 'Foto',
      mediaUrl: 'https://session.s3.amazonaws.com/ab12.jpeg',
      mimeType: 'image/jpeg',
      replyTo: 'true_5511987654321@c.us_3EB0QUOTED',
    });
  });

  it('reads a voice note, a button reply and a location', () => {
    expect(parse(onmessage({ type: 'ptt', body: 'T2dnUw...', mimetype: 'audio/ogg; codecs=opus' }))[0]).toMatchObject({
      messageType: 'audio',
      body: '',
    });
    expect(parse(onmessage({ type: 'buttons_response', body: 'Sim', selectedButtonId: 'yes' }))[0]).toMatchObject({
      messageType: 'button',
      body: 'yes',
    });
    expect(parse(onmessage({ type: 'location', body: '', lat: -23.55, lng: -46.63 }))[0]).toMatchObject({
      messageType: 'location',
      body: '-23.55,-46.63',
    });
  });

  // WA-JS names a chat WhatsApp addresses by LID by the LID; the sender contact carries the
  // number (a Wid) as phoneNumber only when WhatsApp Web has it.
  it('reads a LID chat under its LID, with the number the sender contact carries', () => {
    const sender = {
      id: '123456789012345@lid',
      pushname: 'Ana',
      phoneNumber: { server: 'c.us', user: '5511987654321', _serialized: '5511987654321@c.us' },
    };
    const [event] = parse(
      onmessage({ from: '123456789012345@lid', chatId: '123456789012345@lid', id: 'false_123456789012345@lid_3EB0', sender }),
    );
    expect(event).toMatchObject({ kind: 'message', from: '5511987654321', lid: '123456789012345@lid' });
  });

  it('reads a LID chat without the number under the LID alone', () => {
    const sender = { id: '123456789012345@lid', pushname: 'Ana' };
    const [event] = parse(onmessage({ from: '123456789012345@lid', chatId: '123456789012345@lid', sender }));
    expect(event).toMatchObject({ kind: 'message', from: '', lid: '123456789012345@lid', body: 'Olá, quero um orçamento' });
  });

  it('skips group messages', () => {
    expect(parse(onmessage({ from: '120363023605733675@g.us', isGroupMsg: true }))).toEqual([]);
  });
});

// The business's own message, a reaction and a deletion as wppconnect-server's createSessionUtil.ts
// posts them: onselfmessage (webhook.onSelfMessage) is the WA-JS message; onreactionmessage and
// onrevokedmessage are what wppconnect's listener.layer.ts makes of WA-JS's chat.new_reaction and
// chat.msg_revoke (keys as puppeteer serialises WA-JS's MsgKey and Wid).
const OWN_ID = 'true_5511987654321@c.us_3EB0C0FFEE0000000001';
const ownMessage = (over: Record<string, unknown> = {}) =>
  onmessage({
    event: 'onselfmessage',
    id: OWN_ID,
    body: 'Sent from the phone',
    from: '5511900000000@c.us',
    to: '5511987654321@c.us',
    self: 'out',
    fromMe: true,
    notifyName: 'Loja',
    sender: { id: '5511900000000@c.us', pushname: 'Loja', isMe: true },
    ...over,
  });
const wid = (serialized: string) => ({ server: serialized.split('@')[1], user: serialized.split('@')[0], _serialized: serialized });
const key = (fromMe: boolean, id: string, remote = '5511987654321@c.us') => ({
  fromMe,
  remote: wid(remote),
  id,
  _serialized: `${fromMe}_${remote}_${id}`,
});

describe('EngineEDriver (WPPConnect Server): the whole conversation', () => {
  it('reads onselfmessage as our own message in the chat it went to, without a contact name', () => {
    expect(parse(ownMessage())).toEqual([
      expect.objectContaining({
        kind: 'message',
        fromMe: true,
        from: '5511987654321',
        lid: '',
        contactName: '',
        providerMessageId: OWN_ID,
        body: 'Sent from the phone',
        messageType: 'text',
      }),
    ]);
    expect(parse(ownMessage({ to: '120363023605733675@g.us', isGroupMsg: true }))).toEqual([]);
  });

  it('reads onreactionmessage: the contact reacting to our message, and our removal (reactionText "")', () => {
    const reaction = (fromMe: boolean, text: string) => ({
      event: 'onreactionmessage',
      session: 'NERDWHATS_AMERICA',
      id: key(fromMe, '3EB0REACTION0001'),
      msgId: key(true, '3EB0A9E6C5F1D2B3A4C5'),
      reactionText: text,
      read: false,
      orphan: 0,
      orphanReason: null,
      timestamp: 1718031800000,
    });
    expect(parse(reaction(false, '👍'))).toEqual([
      expect.objectContaining({
        kind: 'reaction',
        from: '5511987654321',
        fromMe: false,
        providerMessageId: 'false_5511987654321@c.us_3EB0REACTION0001',
        targetId: SENT_ID,
        body: '👍',
        timestampMs: 1718031800000,
      }),
    ]);
    expect(parse(reaction(true, ''))).toEqual([expect.objectContaining({ kind: 'reaction', fromMe: true, body: '', targetId: SENT_ID })]);
  });

  it('reads onrevokedmessage as a deletion of refId, by whoever sent it', () => {
    const revoke = (fromMe: boolean) => ({
      event: 'onrevokedmessage',
      session: 'NERDWHATS_AMERICA',
      author: undefined,
      from: wid(fromMe ? '5511900000000@c.us' : '5511987654321@c.us'),
      to: wid(fromMe ? '5511987654321@c.us' : '5511900000000@c.us'),
      id: `${fromMe}_5511987654321@c.us_3EB0REVOKE00001`,
      refId: `${fromMe}_5511987654321@c.us_3EB0B4C5A4E3B8C7D6E5`,
    });
    expect(parse(revoke(false))).toEqual([
      expect.objectContaining({
        kind: 'delete',
        from: '5511987654321',
        fromMe: false,
        targetId: 'false_5511987654321@c.us_3EB0B4C5A4E3B8C7D6E5',
      }),
    ]);
    expect(parse(revoke(true))).toEqual([
      expect.objectContaining({ kind: 'delete', fromMe: true, targetId: 'true_5511987654321@c.us_3EB0B4C5A4E3B8C7D6E5' }),
    ]);
  });

  it('leaves out reactions and deletions in groups', () => {
    const group = '120363023605733675@g.us';
    const reaction = { event: 'onreactionmessage', id: key(false, 'R1', group), msgId: key(true, 'M1', group), reactionText: '👍' };
    expect(parse(reaction)).toEqual([]);
    expect(parse({ event: 'onrevokedmessage', id: `false_${group}_R2`, refId: `false_${group}_M2`, from: wid(group) })).toEqual([]);
  });

  it('turns acks of our messages into statuses: 1 sent, 2 delivered, 3 read, -1 failed; 0 and acks of received messages are none', () => {
    const ack = (level: number, fromMe = true) => ({
      event: 'onack',
      session: 'NERDWHATS_AMERICA',
      id: {
        fromMe,
        remote: '5511987654321@c.us',
        id: '3EB0A9E6C5F1D2B3A4C5',
        _serialized: `${fromMe}_5511987654321@c.us_3EB0A9E6C5F1D2B3A4C5`,
      },
      body: 'Hello!',
      type: 'chat',
      t: 1718031700,
      ack: level,
    });
    expect(parse(ack(3))).toEqual([{ kind: 'status', providerMessageId: SENT_ID, status: 'read', timestampMs: 1718031700000 }]);
    expect([1, 2, -1].map((level) => parse(ack(level))[0].status)).toEqual(['sent', 'delivered', 'failed']);
    expect(parse(ack(0))).toEqual([]);
    expect(parse(ack(3, false))).toEqual([]);
  });

  it('turns status-find inChat and desconnectedMobile into connection events', () => {
    expect(parse({ event: 'status-find', status: 'inChat', session: 'NERDWHATS_AMERICA' })).toEqual([
      { kind: 'connection', connection: 'CONNECTED', error: '' },
    ]);
    expect(parse({ event: 'status-find', status: 'desconnectedMobile', session: 'NERDWHATS_AMERICA' })).toEqual([
      { kind: 'connection', connection: 'DISCONNECTED', error: 'desconnectedMobile' },
    ]);
    expect(parse({ event: 'status-find', status: 'waitForLogin', session: 'NERDWHATS_AMERICA' })).toEqual([]);
  });

  it('yields no event for events it does not use', () => {
    expect(parse({ event: 'onpresencechanged', session: 'NERDWHATS_AMERICA', id: '5511987654321@c.us', state: 'available' })).toEqual([]);
  });
});
