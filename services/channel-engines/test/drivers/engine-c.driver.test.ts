import { startFakeProvider, type FakeProvider, type ProviderRequest } from '@convo/test-support';
import { channelOf, contentOf, failure, interactiveContent, settingsWith, syncFailure } from '../support/driver-fixtures';
import type { Outbound } from '../../src/drivers/driver';
import { EngineCDriver } from '../../src/drivers/engine-c.driver';

// uazapi answers a send with the stored message: `id` is its own "owner:messageid", `messageid` WhatsApp's.
const accepted = (req: ProviderRequest) => {
  const messageid = `3EB0${req.url.replace(/\W/g, '').toUpperCase()}`;
  return {
    status: 200,
    body: {
      id: `551100000000:${messageid}`,
      messageid,
      chatid: `${req.body.number}@s.whatsapp.net`,
      fromMe: true,
      status: 'Pending',
      messageTimestamp: 1718000000000,
    },
  };
};

const TIMEOUT_MS = 2_000;
let uazapi: FakeProvider;
let driver: EngineCDriver;

beforeAll(async () => {
  uazapi = await startFakeProvider(accepted);
  driver = new EngineCDriver(settingsWith(TIMEOUT_MS));
});
afterAll(() => uazapi.close());
beforeEach(() => uazapi.reset());

const channel = (over: Partial<Outbound['channel']> = {}) =>
  channelOf('engine_c', { engineUrl: uazapi.url, engineToken: 'uaz-token', ...over });
const send = (content: Outbound['content']) => driver.send({ channel: channel(), to: '5511987654321', content, reference: 'msg-1' });
const sendInteractive = (type: string, json: unknown) => send(interactiveContent(type, json));
/** The one request sent: its path and body. */
const sent = () => {
  expect(uazapi.requests).toHaveLength(1);
  const [{ method, url, body }] = uazapi.requests;
  return { method, url, body };
};

describe('EngineCDriver: text and media', () => {
  it("sends a text to POST /send/text with the token header and answers uazapi's messageid", async () => {
    await expect(send(contentOf({ text: 'Hello!' }))).resolves.toEqual({ providerMessageId: '3EB0SENDTEXT' });

    const [req] = uazapi.requests;
    expect(req.method).toBe('POST');
    expect(req.url).toBe('/send/text');
    expect(req.headers.token).toBe('uaz-token');
    expect(req.headers.authorization).toBeUndefined();
    expect(req.body).toEqual({ number: '5511987654321', text: 'Hello!' });
  });

  it('takes the WhatsApp id from uazapi\'s "owner:id" when the answer has no messageid', async () => {
    uazapi.answer(() => ({ status: 200, body: { id: '551100000000:3EB0ABCDEF' } }));
    await expect(send(contentOf({ text: 'Hi' }))).resolves.toEqual({ providerMessageId: '3EB0ABCDEF' });
  });

  it('sends an image through /send/media with the text as caption', async () => {
    await send(contentOf({ text: 'Look', mediaUrl: 'https://cdn.example.com/cat.png', mimeType: 'image/png', fileName: 'cat.png' }));
    expect(sent()).toEqual({
      method: 'POST',
      url: '/send/media',
      body: { number: '5511987654321', type: 'image', file: 'https://cdn.example.com/cat.png', text: 'Look' },
    });
  });

  it('sends a video through /send/media', async () => {
    await send(contentOf({ mediaUrl: 'https://cdn.example.com/a.mp4', mimeType: 'video/mp4' }));
    expect(sent().body).toEqual({ number: '5511987654321', type: 'video', file: 'https://cdn.example.com/a.mp4' });
  });

  it('sends a PDF as a document named by docName', async () => {
    await send(
      contentOf({ text: 'Your invoice', mediaUrl: 'https://cdn.example.com/a.pdf', mimeType: 'application/pdf', fileName: 'invoice.pdf' }),
    );
    expect(sent().body).toEqual({
      number: '5511987654321',
      type: 'document',
      file: 'https://cdn.example.com/a.pdf',
      text: 'Your invoice',
      docName: 'invoice.pdf',
    });
  });

  it('sends an audio without caption and its text as a following /send/text', async () => {
    const res = await send(contentOf({ text: 'Listen', mediaUrl: 'https://cdn.example.com/a.mp3', mimeType: 'audio/mpeg' }));
    expect(res).toEqual({ providerMessageId: '3EB0SENDMEDIA' });
    expect(uazapi.requests.map((r) => [r.url, r.body])).toEqual([
      ['/send/media', { number: '5511987654321', type: 'audio', file: 'https://cdn.example.com/a.mp3' }],
      ['/send/text', { number: '5511987654321', text: 'Listen' }],
    ]);
  });

  it("fails with ERR_PROVIDER_FAILED carrying uazapi's reason", async () => {
    uazapi.answer(() => ({ status: 401, body: { error: 'Invalid token' } }));
    const err = await failure(send(contentOf({ text: 'Hi' })));
    expect(err.code).toBe('ERR_PROVIDER_FAILED');
    expect(err.message).toBe('engine_c refused the message (HTTP 401): Invalid token');
  });

  it('fails with ERR_PROVIDER_FAILED on a 2xx without a message id', async () => {
    uazapi.answer(() => ({ status: 200, body: { response: 'ok' } }));
    const err = await failure(send(contentOf({ text: 'Hi' })));
    expect(err.code).toBe('ERR_PROVIDER_FAILED');
    expect(err.message).toContain('messageid');
  });

  it('fails with ERR_PROVIDER_FAILED on the timeout when uazapi stalls, hanging up on it', async () => {
    uazapi.answer(() => 'stall');
    const err = await failure(send(contentOf({ text: 'Hi' })));
    expect(err.message).toMatch(/no answer within 2000 ms/);
    // Only the driver's timeout says "no answer within"; the engine saw the request and the driver hung up on it.
    expect(uazapi.requests).toHaveLength(1);
    await uazapi.hangUps();
  });

  it('refuses a message with neither text nor media, sending nothing', async () => {
    expect((await failure(send(contentOf()))).code).toBe('ERR_VALIDATION');
    expect(uazapi.requests).toEqual([]);
  });
});

describe('EngineCDriver: interactive messages', () => {
  it('sends button through /send/menu with the choices as written', async () => {
    await sendInteractive('engine_c/button', {
      text: 'How can we help?',
      choices: ['Support|support', 'Our site|https://acme.example', 'Call us|call:+5511987654321'],
      footerText: 'Acme',
      imageButton: 'https://cdn.example.com/banner.jpg',
    });
    expect(sent()).toEqual({
      method: 'POST',
      url: '/send/menu',
      body: {
        number: '5511987654321',
        type: 'button',
        text: 'How can we help?',
        choices: ['Support|support', 'Our site|https://acme.example', 'Call us|call:+5511987654321'],
        footerText: 'Acme',
        imageButton: 'https://cdn.example.com/banner.jpg',
      },
    });
    expect(uazapi.requests[0].headers.token).toBe('uaz-token');
  });

  it('sends list through /send/menu with its listButton', async () => {
    await sendInteractive('engine_c/list', {
      text: 'Catalog',
      choices: ['[Phones]', 'Smartphones|phones|New models'],
      listButton: 'See catalog',
    });
    expect(sent()).toEqual({
      method: 'POST',
      url: '/send/menu',
      body: {
        number: '5511987654321',
        type: 'list',
        text: 'Catalog',
        choices: ['[Phones]', 'Smartphones|phones|New models'],
        listButton: 'See catalog',
      },
    });
  });

  it('sends poll through /send/menu, single choice unless selectableCount says otherwise', async () => {
    await sendInteractive('engine_c/poll', { text: 'Best time?', choices: ['Morning', 'Evening'] });
    await sendInteractive('engine_c/poll', { text: 'Which days?', choices: ['Mon', 'Tue', 'Wed'], selectableCount: 3 });
    expect(uazapi.requests.map((r) => [r.url, r.body])).toEqual([
      ['/send/menu', { number: '5511987654321', type: 'poll', text: 'Best time?', choices: ['Morning', 'Evening'], selectableCount: 1 }],
      ['/send/menu', { number: '5511987654321', type: 'poll', text: 'Which days?', choices: ['Mon', 'Tue', 'Wed'], selectableCount: 3 }],
    ]);
  });

  it("sends carousel through /send/carousel, a URL button's url and a REPLY button's id (or text) as uazapi's id", async () => {
    await sendInteractive('engine_c/carousel', {
      text: 'Our products',
      carousel: [
        {
          text: 'Phone XYZ',
          image: 'https://cdn.example.com/xyz.jpg',
          buttons: [
            { text: 'Buy now', type: 'REPLY', id: 'buy_xyz' },
            { text: 'Details', type: 'URL', url: 'https://acme.example/xyz' },
          ],
        },
        { text: 'Notebook', image: 'https://cdn.example.com/nb.jpg', buttons: [{ text: 'I want it', type: 'REPLY' }] },
      ],
    });
    expect(sent()).toEqual({
      method: 'POST',
      url: '/send/carousel',
      body: {
        number: '5511987654321',
        text: 'Our products',
        carousel: [
          {
            text: 'Phone XYZ',
            image: 'https://cdn.example.com/xyz.jpg',
            buttons: [
              { id: 'buy_xyz', text: 'Buy now', type: 'REPLY' },
              { id: 'https://acme.example/xyz', text: 'Details', type: 'URL' },
            ],
          },
          { text: 'Notebook', image: 'https://cdn.example.com/nb.jpg', buttons: [{ id: 'I want it', text: 'I want it', type: 'REPLY' }] },
        ],
      },
    });
  });

  it('refuses a URL button without url, naming it, before sending anything', async () => {
    const err = await failure(
      sendInteractive('engine_c/carousel', {
        text: 'Pick',
        carousel: [{ text: 'A', image: 'https://cdn.example.com/a.jpg', buttons: [{ text: 'Open', type: 'URL' }] }],
      }),
    );
    expect(err.code).toBe('ERR_VALIDATION');
    expect(err.details).toEqual([{ field: 'carousel[0].buttons[0].url', message: 'is required' }]);
    expect(uazapi.requests).toEqual([]);
  });

  it("refuses a carousel without its text (uazapi's /send/carousel requires it), naming it, before sending anything", async () => {
    const err = await failure(
      sendInteractive('engine_c/carousel', {
        carousel: [{ text: 'A', image: 'https://cdn.example.com/a.jpg', buttons: [{ text: 'Buy', type: 'REPLY' }] }],
      }),
    );
    expect(err.code).toBe('ERR_VALIDATION');
    expect(err.details).toEqual([{ field: 'text', message: 'is required' }]);
    expect(uazapi.requests).toEqual([]);
  });

  it('sends pixButton through /send/pix-button', async () => {
    await sendInteractive('engine_c/pixButton', { pixType: 'EVP', pixKey: '123e4567-e89b-12d3-a456-426614174000', pixName: 'Acme Ltda' });
    expect(sent()).toEqual({
      method: 'POST',
      url: '/send/pix-button',
      body: { number: '5511987654321', pixType: 'EVP', pixKey: '123e4567-e89b-12d3-a456-426614174000', pixName: 'Acme Ltda' },
    });
  });

  it('sends locationButton through /send/location-button', async () => {
    await sendInteractive('engine_c/locationButton', { text: 'Share your location' });
    expect(sent()).toEqual({
      method: 'POST',
      url: '/send/location-button',
      body: { number: '5511987654321', text: 'Share your location' },
    });
  });

  it('sends requestPayment through /send/request-payment with the PIX fields', async () => {
    await sendInteractive('engine_c/requestPayment', {
      amount: 149.9,
      title: 'Order #1001',
      text: 'Thanks for buying',
      footer: 'Acme',
      itemName: 'Headphones',
      invoiceNumber: 'INV-1001',
      pixType: 'CNPJ',
      pixKey: '11222333000181',
      pixName: 'Acme Ltda',
    });
    expect(sent()).toEqual({
      method: 'POST',
      url: '/send/request-payment',
      body: {
        number: '5511987654321',
        amount: 149.9,
        title: 'Order #1001',
        text: 'Thanks for buying',
        footer: 'Acme',
        itemName: 'Headphones',
        invoiceNumber: 'INV-1001',
        pixType: 'CNPJ',
        pixKey: '11222333000181',
        pixName: 'Acme Ltda',
      },
    });
  });

  it('sends requestPayment with only its required fields', async () => {
    await sendInteractive('engine_c/requestPayment', {
      amount: 10,
      title: 'Fee',
      pixType: 'EMAIL',
      pixKey: 'pay@acme.example',
      pixName: 'Acme',
    });
    expect(sent().body).toEqual({
      number: '5511987654321',
      amount: 10,
      title: 'Fee',
      pixType: 'EMAIL',
      pixKey: 'pay@acme.example',
      pixName: 'Acme',
    });
  });

  it('refuses an interactive type of another route, sending nothing', async () => {
    const err = await failure(sendInteractive('engine_a/quickReply', { body: { text: 'x' }, buttons: [] }));
    expect(err.message).toBe('engine_a/quickReply cannot be sent through engine_c channels');
    expect(uazapi.requests).toEqual([]);
  });

  it('refuses a type engine_c does not have', async () => {
    const err = await failure(sendInteractive('engine_c/quickReply', {}));
    expect(err.message).toBe('engine_c has no interactive type quickReply');
    expect(uazapi.requests).toEqual([]);
  });

  it("fails with ERR_PROVIDER_FAILED carrying uazapi's reason when it refuses a menu", async () => {
    uazapi.answer(() => ({ status: 400, body: { error: 'choices is required' } }));
    const err = await failure(sendInteractive('engine_c/button', { text: 'x', choices: ['A|a'] }));
    expect(err.code).toBe('ERR_PROVIDER_FAILED');
    expect(err.message).toContain('choices is required');
  });
});

describe('EngineCDriver.checkNumber', () => {
  const check = () => driver.checkNumber(channel(), '5511987654321');

  it('asks POST /chat/check and reports isInWhatsapp with the JID', async () => {
    uazapi.answer(() => ({
      status: 200,
      body: [{ query: '5511987654321', isInWhatsapp: true, jid: '5511987654321@s.whatsapp.net', verifiedName: '' }],
    }));
    expect(await check()).toEqual({ exists: true, networkId: '5511987654321@s.whatsapp.net' });
    expect(uazapi.requests[0]).toMatchObject({
      method: 'POST',
      url: '/chat/check',
      headers: { token: 'uaz-token' },
      body: { numbers: ['5511987654321'] },
    });
  });

  it('reports a number that is not on WhatsApp', async () => {
    uazapi.answer(() => ({ status: 200, body: [{ query: '5511987654321', isInWhatsapp: false, jid: '' }] }));
    expect(await check()).toEqual({ exists: false, networkId: '' });
  });

  it('refuses an answer without isInWhatsapp as a provider failure', async () => {
    uazapi.answer(() => ({ status: 200, body: [] }));
    expect((await failure(check())).code).toBe('ERR_PROVIDER_FAILED');
  });
});

describe('EngineCDriver.parseInbound (uazapi webhooks)', () => {
  const parse = (body: unknown) => driver.parseInbound(channel(), body);
  /** A uazapi "messages" event as its webhook posts it (the chat object trimmed). */
  const messages = (message: Record<string, unknown>) =>
    parse({
      BaseUrl: 'https://acme.uazapi.com',
      EventType: 'messages',
      chat: { name: 'Ana Souza', wa_chatid: '5511987654321@s.whatsapp.net' },
      chatSource: 'updated',
      instanceName: 'acme',
      owner: '551100000000',
      token: 'uaz-token',
      message: {
        buttonOrListid: '',
        chatid: '5511987654321@s.whatsapp.net',
        content: { text: 'Oi' },
        fromMe: false,
        groupName: 'Unknown',
        id: '551100000000:AC15A64CEA2CBE5F37AAC86CEE33908A',
        isGroup: false,
        mediaType: '',
        messageTimestamp: 1769798428000,
        messageType: 'ExtendedTextMessage',
        messageid: 'AC15A64CEA2CBE5F37AAC86CEE33908A',
        owner: '551100000000',
        quoted: '',
        sender: '123456789012345@lid',
        senderName: 'Ana Souza',
        sender_lid: '123456789012345@lid',
        sender_pn: '5511987654321@s.whatsapp.net',
        text: 'Oi',
        type: 'text',
        vote: '',
        wasSentByApi: false,
        ...message,
      },
    });

  it('turns a text into a message event from the chat number, the LID sender kept as the LID', () => {
    const [event] = messages({});
    expect(event).toMatchObject({
      kind: 'message',
      from: '5511987654321',
      lid: '123456789012345@lid',
      contactName: 'Ana Souza',
      providerMessageId: 'AC15A64CEA2CBE5F37AAC86CEE33908A',
      messageType: 'text',
      body: 'Oi',
      replyTo: '',
      timestampMs: 1769798428000,
    });
    expect(JSON.parse(event.rawJson!)).toMatchObject({ messageid: 'AC15A64CEA2CBE5F37AAC86CEE33908A' });
  });

  it('takes the number from sender_pn when the chat is named by LID', () => {
    const [event] = messages({ chatid: '123456789012345@lid' });
    expect(event).toMatchObject({ from: '5511987654321', lid: '123456789012345@lid' });
  });

  it('reads a chat named by LID whose number uazapi does not know under the LID alone', () => {
    const [event] = messages({ chatid: '123456789012345@lid', sender_pn: '' });
    expect(event).toMatchObject({ kind: 'message', from: '', lid: '123456789012345@lid', body: 'Oi' });
  });

  it('reads a quoted reply', () => {
    expect(messages({ quoted: '3EB0SENDTEXT' })[0].replyTo).toBe('3EB0SENDTEXT');
  });

  it('reads an image with its caption and MIME type, and the fileURL uazapi downloaded', () => {
    const [event] = messages({
      messageType: 'ImageMessage',
      type: 'media',
      mediaType: 'image',
      text: 'Receipt',
      fileURL: 'https://acme.uazapi.com/files/AC0C.jpg',
      content: { URL: 'https://mmg.whatsapp.net/o1/x.enc', mimetype: 'image/jpeg', fileLength: 98278 },
    });
    expect(event).toMatchObject({
      messageType: 'image',
      body: 'Receipt',
      mimeType: 'image/jpeg',
      mediaUrl: 'https://acme.uazapi.com/files/AC0C.jpg',
    });
  });

  it('reads a voice note and a document', () => {
    expect(
      messages({ messageType: 'AudioMessage', mediaType: 'ptt', text: '', content: { mimetype: 'audio/ogg; codecs=opus' } })[0],
    ).toMatchObject({
      messageType: 'audio',
      mimeType: 'audio/ogg; codecs=opus',
      mediaUrl: '',
    });
    expect(
      messages({
        messageType: 'DocumentMessage',
        mediaType: 'document',
        text: '',
        content: { mimetype: 'application/pdf', fileName: 'invoice.pdf' },
      })[0],
    ).toMatchObject({
      messageType: 'document',
      fileName: 'invoice.pdf',
    });
  });

  it('reads a location', () => {
    expect(
      messages({ messageType: 'LocationMessage', text: '', content: { degreesLatitude: -23.55, degreesLongitude: -46.63 } })[0],
    ).toMatchObject({
      messageType: 'location',
      body: '-23.55,-46.63',
    });
  });

  it('reports a list choice as buttonOrListid, replying to the list', () => {
    const [event] = messages({
      messageType: 'ListResponseMessage',
      type: 'media',
      mediaType: 'list_response',
      text: '',
      buttonOrListid: 'fones',
      vote: 'Fones',
      quoted: '3EB00EB51811DEDC4195E4',
      content: { title: 'Fones', listType: 1, singleSelectReply: { selectedRowID: 'fones' } },
    });
    expect(event).toMatchObject({ kind: 'message', messageType: 'interactive', body: 'fones', replyTo: '3EB00EB51811DEDC4195E4' });
  });

  it('reports a button choice as buttonOrListid', () => {
    const [event] = messages({ messageType: 'ButtonsResponseMessage', text: 'Support', buttonOrListid: 'support' });
    expect(event).toMatchObject({ messageType: 'button', body: 'support' });
  });

  it('reports a poll vote as the option text uazapi decrypted, replying to the poll', () => {
    const [event] = messages({
      messageType: 'PollUpdateMessage',
      type: 'poll',
      text: '',
      vote: 'Sol',
      quoted: 'AC80C0232690BC1ADD4D087D31ED59B3',
      content: {
        pollCreationMessageKey: { remoteJID: '249666952265850@lid', fromMe: true, ID: 'AC80C0232690BC1ADD4D087D31ED59B3' },
        vote: { encPayload: 'Gs4y', encIV: '4EN0' },
      },
    });
    expect(event).toMatchObject({ kind: 'message', messageType: 'poll_vote', body: 'Sol', replyTo: 'AC80C0232690BC1ADD4D087D31ED59B3' });
  });

  it('yields nothing for a withdrawn vote and groups', () => {
    expect(messages({ messageType: 'PollUpdateMessage', type: 'poll', text: '', vote: '' })).toEqual([]);
    expect(messages({ chatid: '120363025555555555@g.us', isGroup: true })).toEqual([]);
  });

  // uazapi's Message schema (its OpenAPI bundle, 2.0.1): `reaction` is the id of the message reacted
  // to, `edited` the edit history; `content` is whatsmeow's JSON of the message's proto field that
  // `messageType` names (a key's ID, fromMe, remoteJID), so ProtocolMessage carries type 0 (REVOKE)
  // or 14 (MESSAGE_EDIT) with the edited message.
  const ownSide = {
    fromMe: true,
    sender: '551100000000@s.whatsapp.net',
    sender_pn: '551100000000@s.whatsapp.net',
    sender_lid: '99999999999999@lid',
    senderName: 'Acme',
  };
  const key = (fromMe: boolean, ID: string) => ({ remoteJID: '5511987654321@s.whatsapp.net', fromMe, ID });

  it('reads our own message (fromMe) as an outgoing one of the chat, the business left out of the contact', () => {
    expect(messages({ ...ownSide, messageid: '3EB0OWN0001', text: 'Sent from the phone', wasSentByApi: false })).toEqual([
      expect.objectContaining({
        kind: 'message',
        fromMe: true,
        from: '5511987654321',
        lid: '',
        contactName: '',
        providerMessageId: '3EB0OWN0001',
        body: 'Sent from the phone',
      }),
    ]);
  });

  it("reads a ReactionMessage on the message uazapi's reaction names, and its removal", () => {
    const reaction = (fromMe: boolean, text: string) =>
      messages({
        ...(fromMe ? ownSide : {}),
        messageType: 'ReactionMessage',
        messageid: '3EB0REACT0001',
        text,
        reaction: '3EB0SENDTEXT',
        content: { key: key(!fromMe, '3EB0SENDTEXT'), text, senderTimestampMS: 1769798500000 },
      });
    expect(reaction(false, '👍')).toEqual([
      expect.objectContaining({
        kind: 'reaction',
        from: '5511987654321',
        fromMe: false,
        targetId: '3EB0SENDTEXT',
        body: '👍',
        providerMessageId: '3EB0REACT0001',
      }),
    ]);
    expect(reaction(true, '')).toEqual([expect.objectContaining({ kind: 'reaction', fromMe: true, targetId: '3EB0SENDTEXT', body: '' })]);
  });

  it('reads a ProtocolMessage edit (type 14) with the new text, and a revoke (type 0)', () => {
    const protocol = (content: Record<string, unknown>, over: Record<string, unknown> = {}) =>
      messages({ messageType: 'ProtocolMessage', messageid: '3EB0PROTO0001', text: '', content, ...over });
    expect(
      protocol({ key: key(false, 'AC15A64CEA2CBE5F37AAC86CEE33908A'), type: 14, editedMessage: { conversation: 'Oi, tudo bem?' } }),
    ).toEqual([
      expect.objectContaining({ kind: 'edit', fromMe: false, targetId: 'AC15A64CEA2CBE5F37AAC86CEE33908A', body: 'Oi, tudo bem?' }),
    ]);
    expect(protocol({ key: key(true, '3EB0SENDTEXT'), type: 0 }, ownSide)).toEqual([
      expect.objectContaining({ kind: 'delete', fromMe: true, from: '5511987654321', targetId: '3EB0SENDTEXT' }),
    ]);
    const wrapped = {
      message: {
        protocolMessage: {
          key: key(false, 'AC15A64CEA2CBE5F37AAC86CEE33908A'),
          type: 14,
          editedMessage: { extendedTextMessage: { text: 'Editado' } },
        },
      },
    };
    expect(protocol(wrapped, { messageType: 'EditedMessage' })).toEqual([expect.objectContaining({ kind: 'edit', body: 'Editado' })]);
  });

  it('yields nothing for a reaction or protocol message naming no message', () => {
    expect(messages({ messageType: 'ReactionMessage', reaction: '', content: { text: '👍' } })).toEqual([]);
    expect(messages({ messageType: 'ProtocolMessage', content: { type: 3 } })).toEqual([]);
  });

  it('reports each message of a receipt for our messages, with its time', () => {
    const body = {
      EventType: 'messages_update',
      type: 'ReadReceipt',
      state: 'Delivered',
      event: {
        MessageIDs: ['3EB0SENDTEXT', '3EB0SENDMEDIA'],
        Chat: '5511987654321@s.whatsapp.net',
        IsFromMe: false,
        Timestamp: 1778289276,
        Type: 'Delivered',
      },
    };
    expect(parse(body)).toEqual([
      { kind: 'status', providerMessageId: '3EB0SENDTEXT', status: 'delivered', timestampMs: 1778289276000 },
      { kind: 'status', providerMessageId: '3EB0SENDMEDIA', status: 'delivered', timestampMs: 1778289276000 },
    ]);
  });

  it.each([
    ['Read', 'read'],
    ['Played', 'read'],
    ['Sent', 'sent'],
    ['ServerError', 'failed'],
  ])('reports a %s receipt as %s', (type, status) => {
    const body = {
      EventType: 'messages_update',
      type: 'ReadReceipt',
      state: type,
      event: { MessageIDs: ['3EB0X'], IsFromMe: 'False', Timestamp: '1785820620', Type: type },
    };
    expect(parse(body)).toEqual([{ kind: 'status', providerMessageId: '3EB0X', status, timestampMs: 1785820620000 }]);
  });

  it("ignores our own device's receipts and receipt types that are not delivery states", () => {
    expect(parse({ EventType: 'messages_update', state: 'Read', event: { MessageIDs: ['IN-1'], IsFromMe: 'True', Type: 'Read' } })).toEqual(
      [],
    );
    expect(
      parse({ EventType: 'messages_update', state: 'ReadSelf', event: { MessageIDs: ['IN-1'], IsFromMe: false, Type: 'ReadSelf' } }),
    ).toEqual([]);
  });

  it('reports connection connected and disconnected, with the reason', () => {
    expect(parse({ EventType: 'connection', instance: { name: 'acme', status: 'connected' }, instanceName: 'acme' })).toEqual([
      { kind: 'connection', connection: 'CONNECTED', error: '' },
    ]);
    expect(
      parse({
        EventType: 'connection',
        instance: { name: 'acme', status: 'disconnected', lastDisconnectReason: '401: logged out from another device' },
        type: 'LoggedOut',
      }),
    ).toEqual([{ kind: 'connection', connection: 'DISCONNECTED', error: '401: logged out from another device' }]);
    expect(parse({ EventType: 'connection', instance: { name: 'acme', status: 'connecting' } })).toEqual([]);
  });

  it('ignores events it does not use', () => {
    expect(parse({ EventType: 'presence', event: { Chat: '5511987654321@s.whatsapp.net' } })).toEqual([]);
    expect(parse({ EventType: 'chats', chat: { wa_chatid: '5511987654321@s.whatsapp.net' } })).toEqual([]);
  });

  it('refuses a body that is not a JSON object', () => {
    expect(syncFailure(() => parse(null)).code).toBe('ERR_VALIDATION');
  });
});
