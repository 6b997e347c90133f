import { startFakeProvider, type FakeProvider, type ProviderRequest } from '@convo/test-support';
import { channelOf, contentOf, failure, interactiveContent, settingsWith, syncFailure } from '../support/driver-fixtures';
import type { Outbound } from '../../src/drivers/driver';
import { EngineBDriver } from '../../src/drivers/engine-b.driver';

// Evolution answers a send with the stored WAMessage (201); the id names the endpoint so tests can tell calls apart.
const accepted = (req: ProviderRequest) => ({
  status: 201,
  body: {
    key: { remoteJid: `${req.body.number}@s.whatsapp.net`, fromMe: true, id: `EVO-${req.url.split('/')[2]}` },
    pushName: '',
    status: 'PENDING',
    messageTimestamp: 1718000000,
    instanceId: 'c1d2',
  },
});

const TIMEOUT_MS = 2_000;
let evolution: FakeProvider;
let driver: EngineBDriver;

beforeAll(async () => {
  evolution = await startFakeProvider(accepted);
  driver = new EngineBDriver(settingsWith(TIMEOUT_MS));
});
afterAll(() => evolution.close());
beforeEach(() => evolution.reset());

const channel = (over: Partial<Outbound['channel']> = {}) =>
  channelOf('engine_b', { engineUrl: `${evolution.url}/acme-main`, engineToken: 'evo-key', ...over });
const send = (content: Outbound['content'], ch = channel()) =>
  driver.send({ channel: ch, to: '5511987654321', content, reference: 'msg-1' });
const sendInteractive = (type: string, json: unknown) => send(interactiveContent(type, json));
/** The one request sent: its path and body. */
const sent = () => {
  expect(evolution.requests).toHaveLength(1);
  const [{ method, url, body }] = evolution.requests;
  return { method, url, body };
};

describe('EngineBDriver: text and media', () => {
  it('sends a text to POST /message/sendText/{instance} with the apikey header and answers key.id', async () => {
    await expect(send(contentOf({ text: 'Hello!' }))).resolves.toEqual({ providerMessageId: 'EVO-sendText' });

    const [req] = evolution.requests;
    expect(req.method).toBe('POST');
    expect(req.url).toBe('/message/sendText/acme-main');
    expect(req.headers.apikey).toBe('evo-key');
    expect(req.headers.authorization).toBeUndefined();
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.body).toEqual({ number: '5511987654321', text: 'Hello!' });
  });

  it('keeps a path prefix of the Evolution server and encodes the instance name', async () => {
    await send(contentOf({ text: 'Hi' }), channel({ engineUrl: `${evolution.url}/evolution/Acme%20Main/` }));
    expect(evolution.requests.map((r) => r.url)).toEqual(['/evolution/message/sendText/Acme%20Main']);
  });

  it('takes the instance from ENGINE_URL_ENGINE_B when the channel has no engine URL', async () => {
    const configured = new EngineBDriver(
      settingsWith(TIMEOUT_MS, { engineUrl: (kind) => (kind === 'engine_b' ? `${evolution.url}/shared` : '') }),
    );
    await configured.send({ channel: channel({ engineUrl: '' }), to: '5511987654321', content: contentOf({ text: 'Hi' }), reference: 'r' });
    expect(evolution.requests.map((r) => r.url)).toEqual(['/message/sendText/shared']);
  });

  it('refuses an engine URL without an instance segment, sending nothing', async () => {
    const err = await failure(send(contentOf({ text: 'Hi' }), channel({ engineUrl: evolution.url })));
    expect(err.code).toBe('ERR_PROVIDER_FAILED');
    expect(err.message).toContain('instance');
    expect(evolution.requests).toEqual([]);
  });

  it('sends an image through sendMedia with its caption, MIME type and link', async () => {
    await send(contentOf({ text: 'Look', mediaUrl: 'https://cdn.example.com/cat.png', mimeType: 'image/png', fileName: 'cat.png' }));
    expect(sent()).toEqual({
      method: 'POST',
      url: '/message/sendMedia/acme-main',
      body: {
        number: '5511987654321',
        mediatype: 'image',
        mimetype: 'image/png',
        caption: 'Look',
        media: 'https://cdn.example.com/cat.png',
        fileName: 'cat.png',
      },
    });
  });

  it('sends a PDF through sendMedia as a document', async () => {
    await send(contentOf({ mediaUrl: 'https://cdn.example.com/a.pdf', mimeType: 'application/pdf', fileName: 'a.pdf' }));
    expect(sent().body).toEqual({
      number: '5511987654321',
      mediatype: 'document',
      mimetype: 'application/pdf',
      media: 'https://cdn.example.com/a.pdf',
      fileName: 'a.pdf',
    });
  });

  it('sends an audio without caption and its text as a following sendText', async () => {
    const res = await send(contentOf({ text: 'Listen', mediaUrl: 'https://cdn.example.com/a.mp3', mimeType: 'audio/mpeg' }));
    expect(res).toEqual({ providerMessageId: 'EVO-sendMedia' });
    expect(evolution.requests.map((r) => [r.url, r.body])).toEqual([
      [
        '/message/sendMedia/acme-main',
        { number: '5511987654321', mediatype: 'audio', mimetype: 'audio/mpeg', media: 'https://cdn.example.com/a.mp3' },
      ],
      ['/message/sendText/acme-main', { number: '5511987654321', text: 'Listen' }],
    ]);
  });

  it("fails with ERR_PROVIDER_FAILED carrying Evolution's response.message for a number not on WhatsApp", async () => {
    evolution.answer(() => ({
      status: 400,
      body: {
        status: 400,
        error: 'Bad Request',
        response: { message: [{ jid: '5511987654321@s.whatsapp.net', exists: false, number: '5511987654321' }] },
      },
    }));
    const err = await failure(send(contentOf({ text: 'Hi' })));
    expect(err.code).toBe('ERR_PROVIDER_FAILED');
    expect(err.message).toBe('engine_b refused the message (HTTP 400): 5511987654321 is not on WhatsApp');
  });

  it("fails with ERR_PROVIDER_FAILED carrying Evolution's reason for a wrong key", async () => {
    evolution.answer(() => ({ status: 401, body: { status: 401, error: 'Unauthorized', response: { message: 'Unauthorized' } } }));
    const err = await failure(send(contentOf({ text: 'Hi' })));
    expect(err.code).toBe('ERR_PROVIDER_FAILED');
    expect(err.message).toBe('engine_b refused the message (HTTP 401): Unauthorized');
  });

  it('fails with ERR_PROVIDER_FAILED on a 404 for an unknown instance', async () => {
    evolution.answer(() => ({
      status: 404,
      body: { status: 404, error: 'Not Found', response: { message: ['The "acme-main" instance does not exist'] } },
    }));
    const err = await failure(send(contentOf({ text: 'Hi' })));
    expect(err.message).toContain('The "acme-main" instance does not exist');
  });

  it('fails with ERR_PROVIDER_FAILED on a 2xx without key.id', async () => {
    evolution.answer(() => ({ status: 201, body: { status: 'PENDING' } }));
    const err = await failure(send(contentOf({ text: 'Hi' })));
    expect(err.code).toBe('ERR_PROVIDER_FAILED');
    expect(err.message).toContain('key.id');
  });

  it('fails with ERR_PROVIDER_FAILED on the timeout when Evolution never answers, hanging up on it', async () => {
    evolution.answer(() => 'hang');
    const err = await failure(send(contentOf({ text: 'Hi' })));
    expect(err.message).toMatch(/no answer within 2000 ms/);
    // Only the driver's timeout says "no answer within"; the engine saw the request and the driver hung up on it.
    expect(evolution.requests).toHaveLength(1);
    await evolution.hangUps();
  });
});

describe('EngineBDriver: interactive messages', () => {
  const body = { body: { text: 'How can we help?' }, footer: { text: 'Acme' } };
  const buttonsBody = (buttons: unknown[]) => ({ number: '5511987654321', title: 'How can we help?', footer: 'Acme', buttons });

  it('sends quickReply through sendButtons as reply buttons, the body text as title', async () => {
    await sendInteractive('engine_b/quickReply', {
      ...body,
      buttons: [
        { display_text: 'Sales', id: 'sales' },
        { display_text: 'Support', id: 'support' },
      ],
    });
    expect(sent()).toEqual({
      method: 'POST',
      url: '/message/sendButtons/acme-main',
      body: buttonsBody([
        { type: 'reply', displayText: 'Sales', id: 'sales' },
        { type: 'reply', displayText: 'Support', id: 'support' },
      ]),
    });
    expect(evolution.requests[0].headers.apikey).toBe('evo-key');
  });

  it('sends ctaCopy, ctaUrl and ctaCall as copy, url and call buttons', async () => {
    await sendInteractive('engine_b/ctaCopy', { ...body, displayText: 'Copy', copyCode: 'PROMO10' });
    await sendInteractive('engine_b/ctaUrl', { ...body, displayText: 'Open', url: 'https://acme.example/o/1' });
    await sendInteractive('engine_b/ctaCall', { body: { text: 'Talk to us' }, displayText: 'Call', phoneNumber: '+5511987654321' });
    expect(evolution.requests.map((r) => [r.url, r.body])).toEqual([
      ['/message/sendButtons/acme-main', buttonsBody([{ type: 'copy', displayText: 'Copy', copyCode: 'PROMO10' }])],
      ['/message/sendButtons/acme-main', buttonsBody([{ type: 'url', displayText: 'Open', url: 'https://acme.example/o/1' }])],
      [
        '/message/sendButtons/acme-main',
        { number: '5511987654321', title: 'Talk to us', buttons: [{ type: 'call', displayText: 'Call', phoneNumber: '+5511987654321' }] },
      ],
    ]);
  });

  it.each([
    ['CPF', 'cpf'],
    ['CNPJ', 'cnpj'],
    ['PHONE', 'phone'],
    ['EMAIL', 'email'],
    ['EVP', 'random'],
  ])('sends pixButton with pixType %s as a lone pix button with keyType %s', async (pixType, keyType) => {
    await sendInteractive('engine_b/pixButton', { pixType, pixKey: 'the-key', pixName: 'Acme Ltda', bodyText: 'Pay here' });
    expect(sent()).toEqual({
      method: 'POST',
      url: '/message/sendButtons/acme-main',
      body: {
        number: '5511987654321',
        title: 'Pay here',
        buttons: [{ type: 'pix', currency: 'BRL', name: 'Acme Ltda', keyType, key: 'the-key' }],
      },
    });
  });

  it('sends singleSelect through sendList: body as description, list.title as buttonText, ids as rowId', async () => {
    await sendInteractive('engine_b/singleSelect', {
      ...body,
      list: {
        title: 'Options',
        sections: [
          {
            title: 'Plans',
            rows: [
              { id: 'basic', title: 'Basic', description: 'R$ 10' },
              { id: 'pro', title: 'Pro' },
            ],
          },
        ],
      },
    });
    expect(sent()).toEqual({
      method: 'POST',
      url: '/message/sendList/acme-main',
      body: {
        number: '5511987654321',
        title: '',
        description: 'How can we help?',
        footerText: 'Acme',
        buttonText: 'Options',
        sections: [
          {
            title: 'Plans',
            rows: [
              { title: 'Basic', description: 'R$ 10', rowId: 'basic' },
              { title: 'Pro', rowId: 'pro' },
            ],
          },
        ],
      },
    });
  });

  it('sends a list without footer with an empty footerText, which Evolution requires', async () => {
    await sendInteractive('engine_b/singleSelect', {
      body: { text: 'Pick' },
      list: { title: 'Open', sections: [{ title: 'S', rows: [{ id: 'a', title: 'A' }] }] },
    });
    expect(sent().body.footerText).toBe('');
  });

  it('sends poll through sendPoll with the options as values', async () => {
    await sendInteractive('engine_b/poll', { name: 'Best time?', options: ['Morning', 'Evening'], selectableCount: 2 });
    expect(sent()).toEqual({
      method: 'POST',
      url: '/message/sendPoll/acme-main',
      body: { number: '5511987654321', name: 'Best time?', selectableCount: 2, values: ['Morning', 'Evening'] },
    });
  });

  it('sends a poll without selectableCount as single choice', async () => {
    await sendInteractive('engine_b/poll', { name: 'Yes or no?', options: ['Yes', 'No'] });
    expect(sent().body.selectableCount).toBe(1);
  });

  it('refuses an interactive type of another route, sending nothing', async () => {
    const err = await failure(sendInteractive('engine_c/carousel', { carousel: [] }));
    expect(err.code).toBe('ERR_VALIDATION');
    expect(err.message).toBe('engine_c/carousel cannot be sent through engine_b channels');
    expect(evolution.requests).toEqual([]);
  });

  it('refuses a type engine_b does not have', async () => {
    const err = await failure(sendInteractive('engine_b/carousel', {}));
    expect(err.message).toBe('engine_b has no interactive type carousel');
    expect(evolution.requests).toEqual([]);
  });

  it("fails with ERR_PROVIDER_FAILED carrying Evolution's reason when it refuses buttons", async () => {
    evolution.answer(() => ({
      status: 400,
      body: { status: 400, error: 'Bad Request', response: { message: ['Reply buttons cannot be mixed with other button types'] } },
    }));
    const err = await failure(sendInteractive('engine_b/ctaCopy', { ...body, displayText: 'Copy', copyCode: 'X' }));
    expect(err.code).toBe('ERR_PROVIDER_FAILED');
    expect(err.message).toContain('Reply buttons cannot be mixed with other button types');
  });
});

describe('EngineBDriver.checkNumber', () => {
  const check = () => driver.checkNumber(channel(), '5511987654321');

  it('asks POST /chat/whatsappNumbers/{instance} and reports the JID', async () => {
    evolution.answer(() => ({ status: 200, body: [{ exists: true, jid: '5511987654321@s.whatsapp.net', number: '5511987654321' }] }));
    expect(await check()).toEqual({ exists: true, networkId: '5511987654321@s.whatsapp.net' });
    expect(evolution.requests[0]).toMatchObject({
      method: 'POST',
      url: '/chat/whatsappNumbers/acme-main',
      headers: { apikey: 'evo-key' },
      body: { numbers: ['5511987654321'] },
    });
  });

  it('reports a number that is not on WhatsApp', async () => {
    evolution.answer(() => ({ status: 200, body: [{ exists: false, jid: '5511987654321@s.whatsapp.net', number: '5511987654321' }] }));
    expect(await check()).toEqual({ exists: false, networkId: '' });
  });

  it('refuses an answer without exists as a provider failure', async () => {
    evolution.answer(() => ({ status: 200, body: {} }));
    expect((await failure(check())).code).toBe('ERR_PROVIDER_FAILED');
  });
});

describe('EngineBDriver.parseInbound (Evolution webhooks)', () => {
  const parse = (body: unknown) => driver.parseInbound(channel(), body);
  const envelope = (event: string, data: unknown) => ({
    event,
    instance: 'acme-main',
    data,
    destination: 'https://convo.example/webhooks/engine/5',
    date_time: '2024-06-10T09:33:20.000Z',
    sender: '551100000000@s.whatsapp.net',
    server_url: 'http://evolution:8080',
    apikey: 'evo-key',
  });
  const upsert = (message: unknown, key: Record<string, unknown> = {}) =>
    parse(
      envelope('messages.upsert', {
        key: { remoteJid: '5511987654321@s.whatsapp.net', fromMe: false, id: '3EB0C431C26A1916E07E', ...key },
        pushName: 'Ana Souza',
        status: 'DELIVERY_ACK',
        message,
        messageType: Object.keys(message as object)[0],
        messageTimestamp: 1718011800,
        instanceId: 'c1d2',
        source: 'android',
      }),
    );

  it('turns messages.upsert into a message event', () => {
    const [event] = upsert({ conversation: 'Hello there' });
    expect(event).toMatchObject({
      kind: 'message',
      from: '5511987654321',
      contactName: 'Ana Souza',
      providerMessageId: '3EB0C431C26A1916E07E',
      messageType: 'text',
      body: 'Hello there',
      replyTo: '',
      timestampMs: 1718011800000,
    });
    expect(JSON.parse(event.rawJson!)).toMatchObject({ key: { id: '3EB0C431C26A1916E07E' }, message: { conversation: 'Hello there' } });
  });

  it('reads an image with the S3 link Evolution adds as mediaUrl', () => {
    const [event] = upsert({
      imageMessage: { url: 'https://mmg.whatsapp.net/x.enc', mimetype: 'image/jpeg', caption: 'Receipt' },
      mediaUrl: 'https://s3.example/evolution/3EB0.jpeg',
    });
    expect(event).toMatchObject({
      messageType: 'image',
      body: 'Receipt',
      mimeType: 'image/jpeg',
      mediaUrl: 'https://s3.example/evolution/3EB0.jpeg',
    });
  });

  it.each([
    ['a reply button', { buttonsResponseMessage: { selectedButtonId: 'sales', selectedDisplayText: 'Sales' } }, 'button', 'sales'],
    [
      'a list row',
      { listResponseMessage: { title: 'Pro', listType: 1, singleSelectReply: { selectedRowId: 'pro' } } },
      'interactive',
      'pro',
    ],
    ['a template button', { templateButtonReplyMessage: { selectedId: 'yes' } }, 'button', 'yes'],
    [
      'a native-flow button',
      { interactiveResponseMessage: { nativeFlowResponseMessage: { name: 'quick_reply', paramsJson: '{"id":"support"}' } } },
      'interactive',
      'support',
    ],
  ])('reports the chosen id of %s as the body', (_label, message, messageType, body) => {
    expect(upsert(message)).toEqual([expect.objectContaining({ messageType, body })]);
  });

  it('reports a poll vote as the option texts Evolution decrypted, replying to the poll', () => {
    const [event] = upsert({
      pollUpdateMessage: {
        pollCreationMessageKey: { remoteJid: '5511987654321@s.whatsapp.net', fromMe: true, id: 'EVO-poll' },
        vote: { selectedOptions: ['Morning'] },
      },
    });
    expect(event).toMatchObject({
      kind: 'message',
      messageType: 'poll_vote',
      body: 'Morning',
      replyTo: 'EVO-poll',
      providerMessageId: '3EB0C431C26A1916E07E',
    });
  });

  it('reads poll options given as { name } and joins several with ", "', () => {
    const [event] = upsert({
      pollUpdateMessage: {
        pollCreationMessageKey: { id: 'EVO-poll' },
        vote: { selectedOptions: [{ name: 'Morning' }, { name: 'Evening' }] },
      },
    });
    expect(event.body).toBe('Morning, Evening');
  });

  it('reads our own message as an outgoing one and a reaction on a message; skips groups', () => {
    expect(upsert({ conversation: 'from the phone' }, { fromMe: true })).toEqual([
      expect.objectContaining({ kind: 'message', fromMe: true, from: '5511987654321', body: 'from the phone' }),
    ]);
    expect(
      upsert({ conversation: 'group' }, { remoteJid: '120363025555555555@g.us', participant: '5511987654321@s.whatsapp.net' }),
    ).toEqual([]);
    expect(upsert({ reactionMessage: { key: { id: 'X', fromMe: true }, text: '❤️' } })).toEqual([
      expect.objectContaining({ kind: 'reaction', targetId: 'X', body: '❤️', fromMe: false, providerMessageId: '3EB0C431C26A1916E07E' }),
    ]);
  });

  it('reads messages.edited (data: the protocolMessage) as an edit and messages.delete (data: the key) as a deletion', () => {
    const edited = parse(
      envelope('messages.edited', {
        key: { remoteJid: '5511987654321@s.whatsapp.net', fromMe: false, id: '3EB0EDITED' },
        type: 'MESSAGE_EDIT',
        editedMessage: { conversation: 'new text' },
        timestampMs: 1718011900000,
      }),
    );
    expect(edited).toEqual([
      expect.objectContaining({
        kind: 'edit',
        from: '5511987654321',
        targetId: '3EB0EDITED',
        body: 'new text',
        fromMe: false,
        timestampMs: 1718011900000,
      }),
    ]);
    const deleted = parse(envelope('messages.delete', { remoteJid: '5511987654321@s.whatsapp.net', fromMe: false, id: '3EB0GONE' }));
    expect(deleted).toEqual([expect.objectContaining({ kind: 'delete', from: '5511987654321', targetId: '3EB0GONE', fromMe: false })]);
    expect(parse(envelope('messages.delete', { key: { remoteJid: '120363025555555555@g.us', id: 'G' } }))).toEqual([]);
  });

  it('reads the key of Evolution 2.3.5 and later (as Baileys 7 made it): the LID in remoteJid, the number in remoteJidAlt', () => {
    const [event] = upsert(
      { conversation: 'hi' },
      { remoteJid: '123456789012345@lid', remoteJidAlt: '5511987654321@s.whatsapp.net', addressingMode: 'lid' },
    );
    expect(event).toMatchObject({ from: '5511987654321', lid: '123456789012345@lid' });
  });

  it('reads a LID-addressed chat whose number Evolution does not know under the LID alone', () => {
    const [event] = upsert({ conversation: 'hi' }, { remoteJid: '123456789012345@lid', addressingMode: 'lid' });
    expect(event).toMatchObject({ kind: 'message', from: '', lid: '123456789012345@lid', body: 'hi' });
  });

  it('reads addressingMode pn, whose remoteJidAlt is the LID', () => {
    const [event] = upsert({ conversation: 'hi' }, { remoteJidAlt: '123456789012345@lid', addressingMode: 'pn' });
    expect(event).toMatchObject({ from: '5511987654321', lid: '123456789012345@lid' });
  });

  it('reads the senderPn of older Evolution keys', () => {
    const [event] = upsert({ conversation: 'hi' }, { remoteJid: '123456789012345@lid', senderPn: '5511987654321@s.whatsapp.net' });
    expect(event).toMatchObject({ from: '5511987654321', lid: '123456789012345@lid' });
  });

  it('reads the key Evolution 2.3.1–2.3.4 rewrote: the number in remoteJid, the LID kept in previousRemoteJid', () => {
    const key = {
      remoteJid: '5511987654321@s.whatsapp.net',
      senderPn: '5511987654321@s.whatsapp.net',
      previousRemoteJid: '123456789012345@lid',
    };
    expect(upsert({ conversation: 'hi' }, key)[0]).toMatchObject({ from: '5511987654321', lid: '123456789012345@lid' });
  });

  it('reads MESSAGES_UPSERT spelt as the configuration names it', () => {
    const body = envelope('MESSAGES_UPSERT', {
      key: { remoteJid: '5511987654321@s.whatsapp.net', fromMe: false, id: 'X1' },
      message: { conversation: 'hi' },
      messageTimestamp: 1,
    });
    expect(parse(body)).toEqual([expect.objectContaining({ providerMessageId: 'X1', body: 'hi' })]);
  });

  it.each([
    ['SERVER_ACK', 'sent'],
    ['DELIVERY_ACK', 'delivered'],
    ['READ', 'read'],
    ['PLAYED', 'read'],
    ['ERROR', 'failed'],
  ])('reports messages.update %s of our message as %s, by its WhatsApp id', (status, neutral) => {
    const body = envelope('messages.update', {
      messageId: 'cuid-123',
      keyId: 'EVO-sendText',
      remoteJid: '5511987654321@s.whatsapp.net',
      fromMe: true,
      participant: '5511987654321@s.whatsapp.net',
      status,
      instanceId: 'c1d2',
    });
    expect(parse(body)).toEqual([
      { kind: 'status', providerMessageId: 'EVO-sendText', status: neutral, timestampMs: Date.parse('2024-06-10T09:33:20.000Z') },
    ]);
  });

  it("ignores receipts of the contact's messages and states that are not deliveries", () => {
    expect(parse(envelope('messages.update', { keyId: 'IN-1', fromMe: false, status: 'READ' }))).toEqual([]);
    expect(parse(envelope('messages.update', { keyId: 'OUT-1', fromMe: true, status: 'PENDING' }))).toEqual([]);
    expect(parse(envelope('messages.update', { keyId: 'OUT-1', fromMe: true, status: 'DELETED' }))).toEqual([]);
  });

  it('reports connection.update open and close', () => {
    expect(parse(envelope('connection.update', { instance: 'acme-main', state: 'open', statusReason: 200 }))).toEqual([
      { kind: 'connection', connection: 'CONNECTED', error: '' },
    ]);
    expect(parse(envelope('connection.update', { instance: 'acme-main', state: 'close', statusReason: 401 }))).toEqual([
      { kind: 'connection', connection: 'DISCONNECTED', error: '' },
    ]);
    expect(parse(envelope('connection.update', { instance: 'acme-main', state: 'connecting' }))).toEqual([]);
  });

  it('ignores events it does not use', () => {
    expect(parse(envelope('qrcode.updated', { qrcode: { base64: 'data:image/png;base64,AAA' } }))).toEqual([]);
    expect(parse(envelope('send.message', { key: { id: 'X', fromMe: true } }))).toEqual([]);
    expect(parse(envelope('contacts.update', [{ remoteJid: '5511987654321@s.whatsapp.net' }]))).toEqual([]);
  });

  it('refuses a body that is not a JSON object', () => {
    expect(syncFailure(() => parse('messages.upsert')).code).toBe('ERR_VALIDATION');
  });
});
