import * as grpc from '@grpc/grpc-js';
import {
  rpcError,
  startFakeProvider,
  startServiceForTest,
  type FakeProvider,
  type ProviderRequest,
  type TestService,
} from '@convo/test-support';
import { channelEnginesService } from '../../src/spec';
import { channelOf, contentOf, failure, interactiveContent, settingsWith, syncFailure, deliveryRecords } from '../support/driver-fixtures';
import type { Outbound } from '../../src/drivers/driver';
import { EngineADriver } from '../../src/drivers/engine-a.driver';

// The engine answers Baileys' WAMessage; its key.id tells the test which messageId it was given.
const acceptWithKey = (req: ProviderRequest) => ({ status: 200, body: { key: { id: `WA-${req.body.options.messageId}` } } });

const TIMEOUT_MS = 2_000;
let engine: FakeProvider;

beforeAll(async () => {
  engine = await startFakeProvider(acceptWithKey);
});
afterAll(() => engine.close());
beforeEach(() => engine.reset());

const target = (over: Partial<Outbound['channel']> = {}) => channelOf('engine_a', over);
const text = (body: string) => contentOf({ text: body });
const driver = new EngineADriver(settingsWith(TIMEOUT_MS));
const send = (over: Partial<Outbound> = {}) =>
  driver.send({ channel: target({ engineUrl: engine.url }), to: '5511987654321', content: text('Hello!'), reference: 'msg-1', ...over });
const sendInteractive = (type: string, json: unknown) => send({ content: interactiveContent(type, json) });
/** The Baileys content of the only request sent. */
const sentContent = () => {
  expect(engine.requests).toHaveLength(1);
  return engine.requests[0].body.content;
};

// ---- EngineADriver.checkNumber -------------------------------------------------------------

describe('EngineADriver.checkNumber', () => {
  const check = () => driver.checkNumber(target({ engineUrl: engine.url }), '5511987654321');

  it("asks Baileys' onWhatsApp through POST /contacts/check and reports the answer", async () => {
    engine.answer(() => ({ status: 200, body: [{ jid: '5511987654321@s.whatsapp.net', exists: true }] }));
    expect(await check()).toEqual({ exists: true, networkId: '5511987654321@s.whatsapp.net' });
    expect(engine.requests[0]).toMatchObject({
      method: 'POST',
      url: '/contacts/check',
      headers: { authorization: 'Bearer engine-secret' },
      body: { jids: ['5511987654321@s.whatsapp.net'] },
    });
  });

  it('reports a number that is not on the network', async () => {
    engine.answer(() => ({ status: 200, body: [{ jid: '5511987654321@s.whatsapp.net', exists: false }] }));
    expect((await check()).exists).toBe(false);
  });

  it('refuses an answer without exists as a provider failure', async () => {
    engine.answer(() => ({ status: 200, body: { ok: true } }));
    expect((await failure(check())).code).toBe('ERR_PROVIDER_FAILED');
  });
});

// ---- EngineADriver: text and media ---------------------------------------------------------

describe('EngineADriver', () => {
  it("sends Baileys' sendMessage arguments to POST /messages with the channel's bearer token", async () => {
    await send();

    expect(engine.requests).toHaveLength(1);
    const [req] = engine.requests;
    expect(req.method).toBe('POST');
    expect(req.url).toBe('/messages');
    expect(req.headers.authorization).toBe('Bearer engine-secret');
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.body).toEqual({ jid: '5511987654321@s.whatsapp.net', content: { text: 'Hello!' }, options: { messageId: 'msg-1' } });
  });

  it('tolerates a trailing slash on the engine URL', async () => {
    await send({ channel: target({ engineUrl: `${engine.url}//` }) });
    expect(engine.requests.map((r) => r.url)).toEqual(['/messages']);
  });

  it('sends no authorization header for a channel without engine token', async () => {
    await send({ channel: target({ engineUrl: engine.url, engineToken: '' }) });
    expect(engine.requests[0].headers.authorization).toBeUndefined();
  });

  it("returns the engine's key.id as the provider message id", async () => {
    engine.answer(() => ({ status: 200, body: { key: { id: '3EB0C767D26A1D8B', remoteJid: 'x' }, status: 1 } }));
    await expect(send()).resolves.toEqual({ providerMessageId: '3EB0C767D26A1D8B' });
  });

  it("fails with ERR_PROVIDER_FAILED carrying the engine's reason on a 500", async () => {
    engine.answer(() => ({ status: 500, body: { message: 'session closed' } }));
    const err = await failure(send());

    expect(err.code).toBe('ERR_PROVIDER_FAILED');
    expect(err.message).toContain('session closed');
    expect(err.message).toContain('500');
  });

  it('fails with ERR_PROVIDER_FAILED after the timeout when the engine never answers, hanging up on it', async () => {
    engine.answer(() => 'hang');
    const started = Date.now();
    const err = await failure(send());
    const elapsed = Date.now() - started;

    expect(err.code).toBe('ERR_PROVIDER_FAILED');
    expect(err.message).toMatch(/no answer within 2000 ms/);
    // Not before the timeout (timers never fire early); how much later depends on the machine's load.
    expect(elapsed).toBeGreaterThanOrEqual(TIMEOUT_MS - 20);
    // Only the driver's timeout says "no answer within"; the engine saw the request and the driver hung up on it.
    expect(engine.requests).toHaveLength(1);
    await engine.hangUps();
  });

  it('fails with ERR_PROVIDER_FAILED on the timeout when the engine stalls mid-answer, hanging up on it', async () => {
    engine.answer(() => 'stall');
    const err = await failure(send());

    expect(err.code).toBe('ERR_PROVIDER_FAILED');
    expect(err.message).toMatch(/no answer within 2000 ms/);
    // Only the driver's timeout says "no answer within"; the engine saw the request and the driver hung up on it.
    expect(engine.requests).toHaveLength(1);
    await engine.hangUps();
  });

  it.each([
    ['an empty object', {}],
    ['a key without id', { key: { remoteJid: 'x' } }],
    ['an empty id', { key: { id: '' } }],
  ])('fails with ERR_PROVIDER_FAILED on a 2xx with %s', async (_label, body) => {
    engine.answer(() => ({ status: 200, body }));
    const err = await failure(send());
    expect(err.code).toBe('ERR_PROVIDER_FAILED');
    expect(err.message).toContain('key.id');
  });

  it('fails with ERR_PROVIDER_FAILED when the engine is unreachable', async () => {
    const err = await failure(send({ channel: target({ engineUrl: 'http://127.0.0.1:1' }) }));
    expect(err.code).toBe('ERR_PROVIDER_FAILED');
    expect(err.message).toContain('unreachable');
  });

  it('fails with ERR_PROVIDER_FAILED, without any request, when no engine URL is configured', async () => {
    const err = await failure(send({ channel: target({ engineUrl: '' }) }));
    expect(err.code).toBe('ERR_PROVIDER_FAILED');
    expect(err.message).toContain('no engine URL');
    expect(engine.requests).toEqual([]);
  });

  it('falls back to the configured engine URL of its kind when the channel has none', async () => {
    const configured = new EngineADriver(settingsWith(TIMEOUT_MS, { engineUrl: (kind) => (kind === 'engine_a' ? engine.url : '') }));
    await configured.send({ channel: target(), to: '5511987654321', content: text('via env'), reference: 'msg-2' });
    expect(engine.requests.map((r) => r.body.content)).toEqual([{ text: 'via env' }]);
  });

  it('refuses a message with neither text nor media, sending nothing', async () => {
    const err = await failure(send({ content: contentOf() }));
    expect(err.code).toBe('ERR_VALIDATION');
    expect(engine.requests).toEqual([]);
  });

  it('sends an image as content.image.url with the text as caption', async () => {
    await send({
      content: contentOf({ text: 'Look', mediaUrl: 'https://cdn.example.com/cat.png', mimeType: 'image/png', fileName: 'cat.png' }),
    });
    expect(sentContent()).toEqual({ image: { url: 'https://cdn.example.com/cat.png' }, caption: 'Look', mimetype: 'image/png' });
  });

  it('sends a video as content.video.url', async () => {
    await send({ content: contentOf({ mediaUrl: 'https://cdn.example.com/a.mp4', mimeType: 'video/mp4' }) });
    expect(sentContent()).toEqual({ video: { url: 'https://cdn.example.com/a.mp4' }, mimetype: 'video/mp4' });
  });

  it('sends a PDF as a document with its file name', async () => {
    await send({ content: contentOf({ mediaUrl: 'https://cdn.example.com/a.pdf', mimeType: 'application/pdf', fileName: 'a.pdf' }) });
    expect(sentContent()).toEqual({ document: { url: 'https://cdn.example.com/a.pdf' }, mimetype: 'application/pdf', fileName: 'a.pdf' });
  });

  it('sends an audio without caption and its text as a second message with an id of its own', async () => {
    const res = await send({ content: contentOf({ text: 'Listen', mediaUrl: 'https://cdn.example.com/a.ogg', mimeType: 'audio/ogg' }) });

    expect(res).toEqual({ providerMessageId: 'WA-msg-1' });
    expect(engine.requests.map((r) => [r.body.content, r.body.options])).toEqual([
      [{ audio: { url: 'https://cdn.example.com/a.ogg' }, mimetype: 'audio/ogg' }, { messageId: 'msg-1' }],
      [{ text: 'Listen' }, { messageId: 'msg-1-text' }],
    ]);
  });
});

// ---- EngineADriver: interactive (Baileys native flow) --------------------------------------

describe('EngineADriver interactive messages', () => {
  const body = { body: { text: 'How can we help?' }, footer: { text: 'Acme' } };

  it('sends quickReply as one quick_reply native-flow button per button, through POST /messages', async () => {
    await sendInteractive('engine_a/quickReply', {
      ...body,
      buttons: [
        { display_text: 'Sales', id: 'sales' },
        { display_text: 'Support', id: 'support' },
      ],
    });

    expect(engine.requests[0]).toMatchObject({ method: 'POST', url: '/messages', headers: { authorization: 'Bearer engine-secret' } });
    expect(engine.requests[0].body.jid).toBe('5511987654321@s.whatsapp.net');
    expect(sentContent()).toEqual({
      interactiveMessage: {
        body: { text: 'How can we help?' },
        footer: { text: 'Acme' },
        nativeFlowMessage: {
          buttons: [
            { name: 'quick_reply', buttonParamsJson: '{"display_text":"Sales","id":"sales"}' },
            { name: 'quick_reply', buttonParamsJson: '{"display_text":"Support","id":"support"}' },
          ],
        },
      },
    });
  });

  it('leaves the footer out when the send has none', async () => {
    await sendInteractive('engine_a/ctaCopy', { body: { text: 'Your code' }, displayText: 'Copy', copyCode: 'PROMO10' });
    expect(sentContent().interactiveMessage).toEqual({
      body: { text: 'Your code' },
      nativeFlowMessage: { buttons: [{ name: 'cta_copy', buttonParamsJson: '{"display_text":"Copy","copy_code":"PROMO10"}' }] },
    });
  });

  it('sends singleSelect as a single_select button whose title opens the list', async () => {
    await sendInteractive('engine_a/singleSelect', {
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

    const [button] = sentContent().interactiveMessage.nativeFlowMessage.buttons;
    expect(button.name).toBe('single_select');
    expect(JSON.parse(button.buttonParamsJson)).toEqual({
      title: 'Options',
      sections: [
        {
          title: 'Plans',
          rows: [
            { id: 'basic', title: 'Basic', description: 'R$ 10' },
            { id: 'pro', title: 'Pro', description: '' },
          ],
        },
      ],
    });
  });

  it('sends ctaUrl as a cta_url button with the url as merchant_url too', async () => {
    await sendInteractive('engine_a/ctaUrl', { ...body, displayText: 'Open', url: 'https://acme.example/order/1' });
    expect(sentContent().interactiveMessage.nativeFlowMessage.buttons).toEqual([
      {
        name: 'cta_url',
        buttonParamsJson: '{"display_text":"Open","url":"https://acme.example/order/1","merchant_url":"https://acme.example/order/1"}',
      },
    ]);
  });

  it('sends ctaCall as a cta_call button', async () => {
    await sendInteractive('engine_a/ctaCall', { ...body, displayText: 'Call us', phoneNumber: '+5511987654321' });
    expect(sentContent().interactiveMessage.nativeFlowMessage.buttons).toEqual([
      { name: 'cta_call', buttonParamsJson: '{"display_text":"Call us","phone_number":"+5511987654321"}' },
    ]);
  });

  it('sends pixButton as a payment_info button with a static PIX code, keyed by our message id', async () => {
    await send({
      reference: '0b7c2d1e-aaaa-4bbb-8ccc-123456789abc',
      content: interactiveContent('engine_a/pixButton', {
        pixType: 'EVP',
        pixKey: '123e4567-e89b-12d3-a456-426614174000',
        pixName: 'Acme Ltda',
        bodyText: 'Pay here',
      }),
    });

    const message = sentContent().interactiveMessage;
    expect(message.body).toEqual({ text: 'Pay here' });
    expect(message.footer).toBeUndefined();
    const [button] = message.nativeFlowMessage.buttons;
    expect(button.name).toBe('payment_info');
    expect(JSON.parse(button.buttonParamsJson)).toEqual({
      currency: 'BRL',
      total_amount: { value: 0, offset: 100 },
      reference_id: '0b7c2d1eaaaa4bbb8ccc123456789abc',
      type: 'physical-goods',
      order: {
        status: 'pending',
        subtotal: { value: 0, offset: 100 },
        order_type: 'ORDER',
        items: [{ name: '', amount: { value: 0, offset: 100 }, quantity: 0, sale_amount: { value: 0, offset: 100 } }],
      },
      payment_settings: [
        {
          type: 'pix_static_code',
          pix_static_code: { merchant_name: 'Acme Ltda', key: '123e4567-e89b-12d3-a456-426614174000', key_type: 'EVP' },
        },
      ],
      share_payment_status: false,
    });
  });

  it('sends a pixButton without bodyText with no body at all', async () => {
    await sendInteractive('engine_a/pixButton', { pixType: 'CPF', pixKey: '52998224725', pixName: 'Ana' });
    const message = sentContent().interactiveMessage;
    expect(Object.keys(message)).toEqual(['nativeFlowMessage']);
    expect(JSON.parse(message.nativeFlowMessage.buttons[0].buttonParamsJson).payment_settings[0].pix_static_code.key_type).toBe('CPF');
  });

  it('refuses an unknown pixType, sending nothing', async () => {
    const err = await failure(sendInteractive('engine_a/pixButton', { pixType: 'IBAN', pixKey: 'x', pixName: 'Ana' }));
    expect(err.code).toBe('ERR_VALIDATION');
    expect(err.details).toEqual([expect.objectContaining({ field: 'pixType' })]);
    expect(engine.requests).toEqual([]);
  });

  it('refuses an interactive type of another route, sending nothing', async () => {
    const err = await failure(sendInteractive('engine_b/poll', { name: 'Q?', options: ['a', 'b'] }));
    expect(err.code).toBe('ERR_VALIDATION');
    expect(err.message).toBe('engine_b/poll cannot be sent through engine_a channels');
    expect(engine.requests).toEqual([]);
  });

  it('refuses a type engine_a does not have, naming the ones it has', async () => {
    const err = await failure(sendInteractive('engine_a/carousel', { text: 'x' }));
    expect(err.code).toBe('ERR_VALIDATION');
    expect(err.message).toBe('engine_a has no interactive type carousel');
    expect(JSON.stringify(err.details)).toContain('engine_a/quickReply');
    expect(engine.requests).toEqual([]);
  });

  it('names a missing field of a button before sending anything', async () => {
    const err = await failure(sendInteractive('engine_a/quickReply', { body: { text: 'Hi' }, buttons: [{ display_text: 'Yes' }] }));
    expect(err.details).toEqual([{ field: 'buttons[0].id', message: 'is required' }]);
    expect(engine.requests).toEqual([]);
  });

  it("fails with ERR_PROVIDER_FAILED carrying the engine's reason when it refuses an interactive message", async () => {
    engine.answer(() => ({ status: 400, body: { message: 'interactive messages are not enabled' } }));
    const err = await failure(sendInteractive('engine_a/ctaCopy', { body: { text: 'x' }, displayText: 'Copy', copyCode: 'A' }));
    expect(err.code).toBe('ERR_PROVIDER_FAILED');
    expect(err.message).toContain('interactive messages are not enabled');
  });
});

// ---- EngineADriver.parseInbound (Baileys events) -------------------------------------------

describe('EngineADriver.parseInbound', () => {
  const channel = target();
  const parse = (body: unknown) => driver.parseInbound(channel, body);
  const upsert = (...messages: unknown[]) => parse({ event: 'messages.upsert', data: { messages, type: 'notify' } });
  const waMessage = (message: unknown, key: Record<string, unknown> = {}) => ({
    key: { remoteJid: '5511987654321@s.whatsapp.net', fromMe: false, id: '3EB0A1B2C3D4E5F6', ...key },
    messageTimestamp: 1718000000,
    pushName: 'Ana Souza',
    message,
  });

  it('turns a text into a message event from the digits of the sender JID', () => {
    const msg = waMessage({ conversation: 'Hello there' });
    expect(upsert(msg)).toEqual([
      {
        kind: 'message',
        from: '5511987654321',
        lid: '',
        contactName: 'Ana Souza',
        providerMessageId: '3EB0A1B2C3D4E5F6',
        messageType: 'text',
        body: 'Hello there',
        mediaUrl: '',
        replyTo: '',
        timestampMs: 1718000000000,
        rawJson: JSON.stringify(msg),
      },
    ]);
  });

  it('reads a quoted reply and a Long timestamp', () => {
    const [event] = upsert({
      ...waMessage({
        extendedTextMessage: { text: 'Yes, that one', contextInfo: { stanzaId: 'WA-msg-1', participant: '551100000000@s.whatsapp.net' } },
      }),
      messageTimestamp: { low: 1718000000, high: 0, unsigned: true },
    });
    expect(event).toMatchObject({ messageType: 'text', body: 'Yes, that one', replyTo: 'WA-msg-1', timestampMs: 1718000000000 });
  });

  it('reads an image with its caption, MIME type and the download link the engine adds', () => {
    const [event] = upsert(
      waMessage({
        imageMessage: { url: 'https://mmg.whatsapp.net/x.enc', mimetype: 'image/jpeg', caption: 'My receipt' },
        mediaUrl: 'https://engine.example/media/3EB0.jpg',
      }),
    );
    expect(event).toMatchObject({
      messageType: 'image',
      body: 'My receipt',
      mimeType: 'image/jpeg',
      mediaUrl: 'https://engine.example/media/3EB0.jpg',
    });
  });

  it('reads a document inside documentWithCaptionMessage with its file name', () => {
    const [event] = upsert(
      waMessage({
        documentWithCaptionMessage: {
          message: { documentMessage: { mimetype: 'application/pdf', fileName: 'invoice.pdf', caption: 'Invoice' } },
        },
      }),
    );
    expect(event).toMatchObject({ messageType: 'document', body: 'Invoice', mimeType: 'application/pdf', fileName: 'invoice.pdf' });
  });

  it('reads a voice note, a sticker and a location', () => {
    const events = upsert(
      waMessage({ audioMessage: { mimetype: 'audio/ogg; codecs=opus', ptt: true } }, { id: 'A' }),
      waMessage({ stickerMessage: { mimetype: 'image/webp' } }, { id: 'S' }),
      waMessage({ locationMessage: { degreesLatitude: -23.55, degreesLongitude: -46.63 } }, { id: 'L' }),
    );
    expect(events.map((e) => [e.messageType, e.body])).toEqual([
      ['audio', ''],
      ['sticker', ''],
      ['location', '-23.55,-46.63'],
    ]);
  });

  it.each([
    [
      'buttonsResponseMessage.selectedButtonId',
      { buttonsResponseMessage: { selectedButtonId: 'sales', selectedDisplayText: 'Sales' } },
      'button',
      'sales',
    ],
    [
      'listResponseMessage.singleSelectReply.selectedRowId',
      { listResponseMessage: { title: 'Pro', singleSelectReply: { selectedRowId: 'pro' } } },
      'interactive',
      'pro',
    ],
    [
      'templateButtonReplyMessage.selectedId',
      { templateButtonReplyMessage: { selectedId: 'yes', selectedDisplayText: 'Yes', selectedIndex: 0 } },
      'button',
      'yes',
    ],
    [
      'interactiveResponseMessage.nativeFlowResponseMessage paramsJson.id',
      {
        interactiveResponseMessage: {
          body: { text: 'Support' },
          nativeFlowResponseMessage: { name: 'quick_reply', paramsJson: '{"id":"support"}', version: 1 },
        },
      },
      'interactive',
      'support',
    ],
  ])('reports the chosen id of %s as the body', (_label, message, messageType, body) => {
    expect(upsert(waMessage(message))).toEqual([expect.objectContaining({ kind: 'message', messageType, body })]);
  });

  it('takes the quoted interactive message as reply_to of a choice', () => {
    const [event] = upsert(waMessage({ buttonsResponseMessage: { selectedButtonId: 'sales', contextInfo: { stanzaId: 'WA-msg-7' } } }));
    expect(event.replyTo).toBe('WA-msg-7');
  });

  it('reports a poll vote the engine decrypted as the chosen option texts, replying to the poll', () => {
    const [event] = upsert(
      waMessage({
        pollUpdateMessage: {
          pollCreationMessageKey: { remoteJid: '5511987654321@s.whatsapp.net', fromMe: true, id: 'WA-poll-1' },
          vote: { selectedOptions: ['Morning', 'Evening'] },
        },
      }),
    );
    expect(event).toMatchObject({ kind: 'message', messageType: 'poll_vote', body: 'Morning, Evening', replyTo: 'WA-poll-1' });
  });

  it('yields nothing for a vote that unticks every option', () => {
    expect(
      upsert(waMessage({ pollUpdateMessage: { pollCreationMessageKey: { id: 'WA-poll-1' }, vote: { selectedOptions: [] } } })),
    ).toEqual([]);
  });

  // Baileys 7's key (decodeMessageNode): remoteJid, remoteJidAlt and addressingMode.
  it('reads a LID-addressed chat: the LID from remoteJid, the number from remoteJidAlt', () => {
    const key = { remoteJid: '123456789012345@lid', remoteJidAlt: '5511987654321@s.whatsapp.net', addressingMode: 'lid' };
    expect(upsert(waMessage({ conversation: 'hi' }, key))[0]).toMatchObject({ from: '5511987654321', lid: '123456789012345@lid' });
  });

  it('reads a LID-addressed chat without remoteJidAlt under its LID alone, never as a number', () => {
    const [event] = upsert(waMessage({ conversation: 'hi' }, { remoteJid: '123456789012345@lid', addressingMode: 'lid' }));
    expect(event).toMatchObject({ kind: 'message', from: '', lid: '123456789012345@lid', body: 'hi' });
  });

  it('reads a number-addressed chat whose remoteJidAlt is the LID', () => {
    const key = { remoteJid: '5511987654321@s.whatsapp.net', remoteJidAlt: '123456789012345@lid', addressingMode: 'pn' };
    expect(upsert(waMessage({ conversation: 'hi' }, key))[0]).toMatchObject({ from: '5511987654321', lid: '123456789012345@lid' });
  });

  it('reads the senderPn and senderLid of Baileys 6.7 keys', () => {
    const lidChat = upsert(
      waMessage({ conversation: 'a' }, { remoteJid: '123456789012345@lid', senderPn: '5511987654321@s.whatsapp.net' }),
    );
    const pnChat = upsert(waMessage({ conversation: 'b' }, { senderLid: '123456789012345@lid' }));
    expect([...lidChat, ...pnChat].map((e) => [e.from, e.lid])).toEqual([
      ['5511987654321', '123456789012345@lid'],
      ['5511987654321', '123456789012345@lid'],
    ]);
  });

  it('skips groups, status posts and protocol messages it does not store', () => {
    expect(
      upsert(
        waMessage({ conversation: 'in a group' }, { remoteJid: '120363025555555555@g.us', participant: '5511987654321@s.whatsapp.net' }),
        waMessage({ imageMessage: { mimetype: 'image/jpeg' } }, { remoteJid: 'status@broadcast' }),
        waMessage({ reactionMessage: { key: { id: 'X' }, text: '👍' } }, { remoteJid: '120363025555555555@g.us' }),
        waMessage({ protocolMessage: { type: 3, ephemeralExpiration: 604800 } }),
      ),
    ).toEqual([]);
  });

  it('reads our own message (key.fromMe, sent from the phone) as an outgoing message of the chat, without the business pushName', () => {
    const [event] = upsert(waMessage({ conversation: 'sent from the phone' }, { fromMe: true, id: '3EB0FROMPHONE' }));
    expect(event).toMatchObject({
      kind: 'message',
      fromMe: true,
      from: '5511987654321',
      providerMessageId: '3EB0FROMPHONE',
      body: 'sent from the phone',
      contactName: '',
    });
  });

  it('reads a reaction (reactionMessage) and its removal (text "") on the message its key names', () => {
    const reaction = (text: string, fromMe = false) =>
      waMessage(
        {
          reactionMessage: {
            key: { remoteJid: '5511987654321@s.whatsapp.net', fromMe: true, id: '3EB0OURS' },
            text,
            senderTimestampMs: '1718000001000',
          },
        },
        { id: `R-${text || 'none'}`, fromMe },
      );
    expect(upsert(reaction('❤️'), reaction('', true))).toEqual([
      expect.objectContaining({
        kind: 'reaction',
        targetId: '3EB0OURS',
        body: '❤️',
        fromMe: false,
        from: '5511987654321',
        providerMessageId: 'R-❤️',
        timestampMs: 1718000001000,
      }),
      expect.objectContaining({ kind: 'reaction', targetId: '3EB0OURS', body: '', fromMe: true }),
    ]);
  });

  it('reads a revoke (protocolMessage type 0 or REVOKE) as a deletion of the message its key names', () => {
    const revoke = (type: unknown) =>
      waMessage(
        { protocolMessage: { key: { remoteJid: '5511987654321@s.whatsapp.net', fromMe: false, id: '3EB0THEIRS' }, type } },
        { id: `P-${String(type)}` },
      );
    expect(upsert(revoke(0), revoke('REVOKE'))).toEqual([
      expect.objectContaining({ kind: 'delete', targetId: '3EB0THEIRS', fromMe: false, providerMessageId: 'P-0' }),
      expect.objectContaining({ kind: 'delete', targetId: '3EB0THEIRS', providerMessageId: 'P-REVOKE' }),
    ]);
  });

  it('reads an edit, bare (protocolMessage MESSAGE_EDIT) or as Baileys 7 wraps it (editedMessage.message.protocolMessage)', () => {
    const protocol = (text: string) => ({
      key: { remoteJid: '5511987654321@s.whatsapp.net', fromMe: false, id: '3EB0THEIRS' },
      type: 14,
      editedMessage: { conversation: text },
      timestampMs: '1718000005000',
    });
    const bare = waMessage({ protocolMessage: protocol('fixed typo') }, { id: 'E1' });
    const wrapped = waMessage(
      {
        editedMessage: {
          message: {
            protocolMessage: {
              ...protocol('second fix'),
              type: 'MESSAGE_EDIT',
              editedMessage: { extendedTextMessage: { text: 'second fix' } },
            },
          },
        },
      },
      { id: 'E2' },
    );
    expect(upsert(bare, wrapped)).toEqual([
      expect.objectContaining({
        kind: 'edit',
        targetId: '3EB0THEIRS',
        body: 'fixed typo',
        fromMe: false,
        timestampMs: 1718000005000,
        providerMessageId: 'E1',
      }),
      expect.objectContaining({ kind: 'edit', targetId: '3EB0THEIRS', body: 'second fix', providerMessageId: 'E2' }),
    ]);
  });

  it('reports the delivery states of our own messages from messages.update', () => {
    const update = (id: string, status: number, fromMe = true) => ({
      key: { remoteJid: '5511987654321@s.whatsapp.net', id, fromMe },
      update: { status },
    });
    expect(
      parse({
        event: 'messages.update',
        data: [update('A', 2), update('B', 3), update('C', 4), update('D', 5), update('E', 0), update('F', 1), update('G', 4, false)],
      }),
    ).toEqual([
      { kind: 'status', providerMessageId: 'A', status: 'sent', timestampMs: 0 },
      { kind: 'status', providerMessageId: 'B', status: 'delivered', timestampMs: 0 },
      { kind: 'status', providerMessageId: 'C', status: 'read', timestampMs: 0 },
      { kind: 'status', providerMessageId: 'D', status: 'read', timestampMs: 0 },
      { kind: 'status', providerMessageId: 'E', status: 'failed', timestampMs: 0 },
    ]);
  });

  it('reports connection.update open and close, with the reason of a close', () => {
    expect(parse({ event: 'connection.update', data: { connection: 'open' } })).toEqual([
      { kind: 'connection', connection: 'CONNECTED', error: '' },
    ]);
    expect(
      parse({ event: 'connection.update', data: { connection: 'close', lastDisconnect: { error: { message: 'Connection Failure' } } } }),
    ).toEqual([{ kind: 'connection', connection: 'DISCONNECTED', error: 'Connection Failure' }]);
    expect(parse({ event: 'connection.update', data: { connection: 'connecting' } })).toEqual([]);
    expect(parse({ event: 'connection.update', data: { qr: '2@abc' } })).toEqual([]);
  });

  it('ignores events it does not use', () => {
    expect(parse({ event: 'presence.update', data: { id: '5511987654321@s.whatsapp.net' } })).toEqual([]);
    expect(parse({ event: 'messaging-history.set', data: { messages: [waMessage({ conversation: 'old' })] } })).toEqual([]);
  });

  it('refuses a body that is not a JSON object', () => {
    expect(syncFailure(() => parse(['messages.upsert'])).code).toBe('ERR_VALIDATION');
  });
});

// ---- through the started service -----------------------------------------------------------

describe('Deliver and ParseInbound over gRPC', () => {
  let svc: TestService<'channelEngines'>;
  let lastChannel = 100;

  beforeAll(async () => {
    svc = await startServiceForTest(channelEnginesService, { name: 'channel-engines-test', env: { PROVIDER_TIMEOUT_MS: '1000' } });
  });
  afterAll(() => svc?.stop());

  const deliver = (channelId: number) =>
    svc.client.Deliver({
      channel: target({ id: channelId, tenantId: 9, engineUrl: engine.url }),
      to: '5511987654321',
      content: { text: 'Hi' },
      reference: `ref-${channelId}`,
    });
  const deliveriesOf = (channelId: number) => deliveryRecords(svc.db, channelId) as Promise<Array<Record<string, any>>>;

  it('lists the engine_a, engine_b and engine_c drivers', async () => {
    const { kinds } = await svc.client.ListDrivers({});
    expect(kinds).toEqual(expect.arrayContaining(['engine_a', 'engine_b', 'engine_c']));
  });

  it('delivers and records a successful delivery', async () => {
    const channelId = ++lastChannel;
    const res = await deliver(channelId);

    expect(res).toMatchObject({ providerMessageId: `WA-ref-${channelId}`, driver: 'engine_a' });
    expect(engine.requests).toHaveLength(1);
    expect(await deliveriesOf(channelId)).toEqual([
      expect.objectContaining({
        tenantId: 9,
        driver: 'engine_a',
        to: '5511987654321',
        ok: true,
        error: '',
        providerMessageId: `WA-ref-${channelId}`,
      }),
    ]);
  });

  it('answers UNAVAILABLE with ERR_PROVIDER_FAILED and records the failed delivery with its reason', async () => {
    const channelId = ++lastChannel;
    engine.answer(() => ({ status: 500, body: { message: 'session closed' } }));
    const err = await rpcError(deliver(channelId));

    expect(err.code).toBe(grpc.status.UNAVAILABLE);
    expect(err.metadata.get('err-code')).toEqual(['ERR_PROVIDER_FAILED']);
    expect(err.details).toContain('session closed');
    const [delivery, ...more] = await deliveriesOf(channelId);
    expect(more).toEqual([]);
    expect(delivery).toMatchObject({ ok: false, providerMessageId: '' });
    expect(delivery.error).toContain('session closed');
  });

  it('refuses a channel kind without driver, sending nothing', async () => {
    const err = await rpcError(
      svc.client.Deliver({ channel: target({ type: 'engine_z', engineUrl: engine.url }), to: '5511987654321', content: { text: 'Hi' } }),
    );
    expect(err).toMatchObject({ code: grpc.status.UNAVAILABLE });
    expect(err.metadata.get('err-code')).toEqual(['ERR_PROVIDER_FAILED']);
    expect(engine.requests).toEqual([]);
  });

  it("parses an engine_a webhook into events stamped with the URL's channel", async () => {
    const body = {
      event: 'messages.upsert',
      data: {
        type: 'notify',
        messages: [
          {
            key: { remoteJid: '5511987654321@s.whatsapp.net', fromMe: false, id: 'IN-1' },
            messageTimestamp: 1718000000,
            pushName: 'Ana',
            message: { buttonsResponseMessage: { selectedButtonId: 'sales' } },
          },
        ],
      },
    };
    const { events } = await svc.client.ParseInbound({
      source: 'engine',
      channel: target({ id: 77 }),
      body: Buffer.from(JSON.stringify(body)),
    });
    expect(events).toEqual([
      expect.objectContaining({
        kind: 'message',
        channelId: 77,
        channelType: 'engine_a',
        from: '5511987654321',
        providerMessageId: 'IN-1',
        body: 'sales',
        messageType: 'button',
        timestampMs: '1718000000000',
      }),
    ]);
  });
});
