import { parseMetaWebhook } from '../../src/inbound/meta.parser';

// Payloads below follow Meta's documented webhook examples (WhatsApp Cloud API "messages" field
// reference; Messenger webhook events; Instagram messaging webhooks), ids shortened.

const PHONE_ID = '106540352242922';
const WA_ID = '16505551234';

/** One WhatsApp Cloud API POST carrying `value` for the phone number PHONE_ID. */
const waba = (value: Record<string, unknown>, phoneId = PHONE_ID) => ({
  object: 'whatsapp_business_account',
  entry: [
    {
      id: '102290129340398',
      changes: [
        {
          field: 'messages',
          value: { messaging_product: 'whatsapp', metadata: { display_phone_number: '15550783881', phone_number_id: phoneId }, ...value },
        },
      ],
    },
  ],
});
const contacts = [{ profile: { name: 'Sheena Nelson' }, wa_id: WA_ID }];
const inbound = (message: Record<string, unknown>) =>
  waba({ contacts, messages: [{ from: WA_ID, id: 'wamid.IN1', timestamp: '1749416383', ...message }] });

/** What every WhatsApp message event of `inbound` shares. */
const wabaMessage = (message: Record<string, unknown>) => ({
  kind: 'message',
  channelType: 'waba',
  accountId: PHONE_ID,
  from: WA_ID,
  bsuid: '',
  parentBsuid: '',
  username: '',
  contactName: 'Sheena Nelson',
  providerMessageId: 'wamid.IN1',
  replyTo: '',
  timestampMs: 1749416383000,
  rawJson: JSON.stringify({ from: WA_ID, id: 'wamid.IN1', timestamp: '1749416383', ...message }),
});

describe('parseMetaWebhook: WhatsApp Cloud API messages', () => {
  it('reads a text message with the contact’s profile name, seconds turned into milliseconds', () => {
    const message = { type: 'text', text: { body: 'Does it come in another color?' } };
    expect(parseMetaWebhook(inbound(message))).toEqual([
      { ...wabaMessage(message), messageType: 'text', body: 'Does it come in another color?' },
    ]);
  });

  it.each([
    ['image', { caption: 'The red one', mime_type: 'image/jpeg', sha256: 'abc', id: '1003383421387256' }, 'The red one', ''],
    ['video', { mime_type: 'video/mp4', sha256: 'abc', id: '1003383421387257' }, '', ''],
    ['audio', { mime_type: 'audio/ogg; codecs=opus', sha256: 'abc', id: '1003383421387258', voice: true }, '', ''],
    [
      'document',
      { caption: 'Invoice', filename: 'invoice.pdf', mime_type: 'application/pdf', sha256: 'abc', id: '1003383421387259' },
      'Invoice',
      'invoice.pdf',
    ],
    ['sticker', { mime_type: 'image/webp', sha256: 'abc', id: '1003383421387260', animated: false }, '', ''],
  ])('reads a %s as its media id, MIME type, caption and file name', (type, media, body, fileName) => {
    const message = { type, [type]: media };
    expect(parseMetaWebhook(inbound(message))).toEqual([
      { ...wabaMessage(message), messageType: type, body, providerMediaId: media.id, mimeType: media.mime_type, fileName },
    ]);
  });

  it('reads a location as "latitude,longitude" then name and address', () => {
    const message = {
      type: 'location',
      location: { latitude: -23.5613, longitude: -46.6565, name: 'MASP', address: 'Av. Paulista, 1578' },
    };
    expect(parseMetaWebhook(inbound(message))).toEqual([
      { ...wabaMessage(message), messageType: 'location', body: '-23.5613,-46.6565\nMASP\nAv. Paulista, 1578' },
    ]);
  });

  it('reads a reply-button tap as an interactive message whose body is the button id (our title)', () => {
    const message = {
      context: { from: '15550783881', id: 'wamid.OUT1' },
      type: 'interactive',
      interactive: { type: 'button_reply', button_reply: { id: 'Yes', title: 'Yes' } },
    };
    expect(parseMetaWebhook(inbound(message))).toEqual([
      { ...wabaMessage(message), replyTo: 'wamid.OUT1', messageType: 'interactive', body: 'Yes' },
    ]);
  });

  it('reads a list choice as an interactive message whose body is the row id', () => {
    const message = {
      context: { from: '15550783881', id: 'wamid.OUT2' },
      type: 'interactive',
      interactive: { type: 'list_reply', list_reply: { id: 'M', title: 'Medium', description: '52 cm' } },
    };
    expect(parseMetaWebhook(inbound(message))).toEqual([
      { ...wabaMessage(message), replyTo: 'wamid.OUT2', messageType: 'interactive', body: 'M' },
    ]);
  });

  it('reads a template quick-reply button as message type button with its payload', () => {
    const message = {
      context: { from: '15550783881', id: 'wamid.TPL' },
      type: 'button',
      button: { payload: 'STOP_PROMOS', text: 'Stop promotions' },
    };
    expect(parseMetaWebhook(inbound(message))).toEqual([
      { ...wabaMessage(message), replyTo: 'wamid.TPL', messageType: 'button', body: 'STOP_PROMOS' },
    ]);
  });

  it('reads a text quoting another message with reply_to', () => {
    const message = { context: { from: WA_ID, id: 'wamid.EARLIER' }, type: 'text', text: { body: 'this one' } };
    expect(parseMetaWebhook(inbound(message))[0]).toMatchObject({ replyTo: 'wamid.EARLIER', body: 'this one' });
  });

  it('reads an unsupported message as unknown with Meta’s reason', () => {
    const message = {
      type: 'unknown',
      errors: [
        {
          code: 131051,
          title: 'Message type unknown',
          message: 'Message type unknown',
          error_data: { details: 'Message type is currently not supported.' },
        },
      ],
    };
    expect(parseMetaWebhook(inbound(message))).toEqual([
      {
        ...wabaMessage(message),
        messageType: 'unknown',
        body: '',
        error: '(#131051) Message type unknown: Message type is currently not supported.',
      },
    ]);
  });
});

describe('parseMetaWebhook: WhatsApp reactions and echoes (coexistence)', () => {
  it('reads a reaction message on the message it names, and its removal (no emoji)', () => {
    const reaction = { type: 'reaction', reaction: { message_id: 'wamid.OURS', emoji: '\uD83D\uDE00' } };
    expect(parseMetaWebhook(inbound(reaction))).toEqual([
      { ...wabaMessage(reaction), kind: 'reaction', targetId: 'wamid.OURS', body: '\uD83D\uDE00', messageType: '', error: '' },
    ]);
    const removed = { type: 'reaction', reaction: { message_id: 'wamid.OURS' } };
    expect(parseMetaWebhook(inbound(removed))[0]).toMatchObject({ kind: 'reaction', targetId: 'wamid.OURS', body: '' });
  });

  it('reads smb_message_echoes: what the business typed in the WhatsApp Business app, as an outgoing message to `to`', () => {
    const echo = {
      from: '15550783881',
      to: WA_ID,
      id: 'wamid.ECHO1',
      timestamp: '1749416400',
      type: 'text',
      text: { body: 'typed in the app' },
    };
    const body = {
      object: 'whatsapp_business_account',
      entry: [
        {
          id: '102290129340398',
          changes: [
            {
              field: 'smb_message_echoes',
              value: {
                messaging_product: 'whatsapp',
                metadata: { display_phone_number: '15550783881', phone_number_id: PHONE_ID },
                message_echoes: [echo],
              },
            },
          ],
        },
      ],
    };
    expect(parseMetaWebhook(body)).toEqual([
      {
        kind: 'message',
        channelType: 'waba',
        accountId: PHONE_ID,
        fromMe: true,
        from: WA_ID,
        bsuid: '',
        parentBsuid: '',
        providerMessageId: 'wamid.ECHO1',
        replyTo: '',
        timestampMs: 1749416400000,
        messageType: 'text',
        body: 'typed in the app',
        rawJson: JSON.stringify(echo),
      },
    ]);
  });
});

describe('parseMetaWebhook: WhatsApp Cloud API statuses', () => {
  const status = (s: Record<string, unknown>) => ({ id: 'wamid.OUT1', timestamp: '1750263773', recipient_id: WA_ID, ...s });

  it.each(['sent', 'delivered', 'read'])('reads a %s status of our message', (value) => {
    const s = status({
      status: value,
      conversation: { id: 'c1', origin: { type: 'service' } },
      pricing: { billable: true, pricing_model: 'PMP', category: 'service' },
    });
    expect(parseMetaWebhook(waba({ statuses: [s] }))).toEqual([
      {
        kind: 'status',
        channelType: 'waba',
        accountId: PHONE_ID,
        from: WA_ID,
        bsuid: '',
        parentBsuid: '',
        providerMessageId: 'wamid.OUT1',
        status: value,
        timestampMs: 1750263773000,
        error: '',
        pricing: { billable: true, pricingModel: 'PMP', category: 'service' },
        rawJson: JSON.stringify(s),
      },
    ]);
  });

  it.each([
    [
      'a billable marketing message',
      { billable: true, pricing_model: 'PMP', category: 'marketing', type: 'regular' },
      { billable: true, pricingModel: 'PMP', category: 'marketing' },
    ],
    [
      'a free service message',
      { billable: false, pricing_model: 'PMP', category: 'service', type: 'free_customer_service' },
      { billable: false, pricingModel: 'PMP', category: 'service' },
    ],
    [
      'a status without billable (deprecated under PMP): type regular is charged',
      { pricing_model: 'PMP', category: 'utility', type: 'regular' },
      { billable: true, pricingModel: 'PMP', category: 'utility' },
    ],
    [
      'a status without billable, free entry point',
      { pricing_model: 'PMP', category: 'marketing', type: 'free_entry_point' },
      { billable: false, pricingModel: 'PMP', category: 'marketing' },
    ],
  ])("reads the status's pricing: %s", (_label, pricing, expected) => {
    expect(parseMetaWebhook(waba({ statuses: [status({ status: 'delivered', pricing })] }))[0].pricing).toEqual(expected);
  });

  it('gives no pricing when the status carries none', () => {
    expect(parseMetaWebhook(waba({ statuses: [status({ status: 'sent' })] }))[0]).not.toHaveProperty('pricing');
  });

  it('reads a failed status with the error text (131047, the closed 24-hour window)', () => {
    const s = status({
      status: 'failed',
      errors: [
        {
          code: 131047,
          title: 'Re-engagement message',
          message: 'Re-engagement message',
          error_data: {
            details: 'Message failed to send because more than 24 hours have passed since the customer last replied to this number.',
          },
          href: 'https://developers.facebook.com/docs/whatsapp/cloud-api/support/error-codes/',
        },
      ],
    });
    expect(parseMetaWebhook(waba({ statuses: [s] }))).toEqual([
      expect.objectContaining({
        kind: 'status',
        status: 'failed',
        error:
          '(#131047) Re-engagement message: Message failed to send because more than 24 hours have passed since the customer last replied to this number.',
      }),
    ]);
  });

  it('reads every entry and change of one POST, each event naming its own phone number id', () => {
    const body = {
      object: 'whatsapp_business_account',
      entry: [
        {
          id: 'WABA_1',
          changes: [
            {
              field: 'messages',
              value: {
                metadata: { phone_number_id: 'P1' },
                contacts,
                messages: [{ from: WA_ID, id: 'wamid.A', timestamp: '1', type: 'text', text: { body: 'a' } }],
              },
            },
            {
              field: 'messages',
              value: {
                metadata: { phone_number_id: 'P1' },
                statuses: [{ id: 'wamid.B', status: 'delivered', timestamp: '2', recipient_id: WA_ID }],
              },
            },
            { field: 'message_template_status_update', value: { event: 'APPROVED', message_template_id: 1 } },
          ],
        },
        {
          id: 'WABA_2',
          changes: [
            {
              field: 'messages',
              value: {
                metadata: { phone_number_id: 'P2' },
                contacts: [{ profile: { name: 'Kerry' }, wa_id: '5511999990000' }],
                messages: [
                  { from: '5511999990000', id: 'wamid.C', timestamp: '3', type: 'text', text: { body: 'c' } },
                  { from: '5511999990000', id: 'wamid.D', timestamp: '4', type: 'text', text: { body: 'd' } },
                ],
              },
            },
          ],
        },
      ],
    };
    expect(parseMetaWebhook(body).map((e) => [e.kind, e.accountId, e.providerMessageId, e.contactName ?? '', e.body ?? e.status])).toEqual([
      ['message', 'P1', 'wamid.A', 'Sheena Nelson', 'a'],
      ['status', 'P1', 'wamid.B', '', 'delivered'],
      ['message', 'P2', 'wamid.C', 'Kerry', 'c'],
      ['message', 'P2', 'wamid.D', 'Kerry', 'd'],
    ]);
  });
});

// ---- WhatsApp Cloud API: identities beyond the phone (business-scoped user ids) ---------------
// Shapes from Meta's "Business-scoped user IDs" page (incoming messages, status messages and the
// REQUEST_CONTACT_INFO contacts webhook examples).

const BSUID = 'US.13491208655302741918';
const PARENT = 'US.ENT.11815799212886844830';

describe('parseMetaWebhook: WhatsApp contacts known by business-scoped user id', () => {
  const sheena = { profile: { name: 'Sheena Nelson', username: '@realsheenanelson' }, user_id: BSUID, parent_user_id: PARENT };
  const text = { id: 'wamid.IN2', timestamp: '1749416383', type: 'text', text: { body: 'Does it come in another color?' } };

  it('reads a message with no phone at all (a user with a username) under its BSUID, parent BSUID, name and username', () => {
    const message = { from_user_id: BSUID, from_parent_user_id: PARENT, ...text };
    expect(parseMetaWebhook(waba({ contacts: [sheena], messages: [message] }))).toEqual([
      {
        kind: 'message',
        channelType: 'waba',
        accountId: PHONE_ID,
        from: '',
        bsuid: BSUID,
        parentBsuid: PARENT,
        username: '@realsheenanelson',
        contactName: 'Sheena Nelson',
        providerMessageId: 'wamid.IN2',
        replyTo: '',
        timestampMs: 1749416383000,
        messageType: 'text',
        body: 'Does it come in another color?',
        rawJson: JSON.stringify(message),
      },
    ]);
  });

  it('reads both identities when Meta shares the phone too, so the two can be linked', () => {
    const value = {
      contacts: [{ profile: { name: 'Pablo M.' }, wa_id: WA_ID, user_id: BSUID }],
      messages: [{ from: WA_ID, from_user_id: BSUID, ...text }],
    };
    expect(parseMetaWebhook(waba(value))[0]).toMatchObject({
      from: WA_ID,
      bsuid: BSUID,
      parentBsuid: '',
      username: '',
      contactName: 'Pablo M.',
    });
  });

  it('finds each sender’s contacts entry by wa_id or by user_id, whichever it has', () => {
    const value = {
      contacts: [
        { profile: { name: 'Ana' }, wa_id: '5511987654321', user_id: 'BR.1111' },
        { profile: { name: 'Bia', username: '@bia' }, user_id: 'BR.2222' },
      ],
      messages: [
        { from_user_id: 'BR.2222', ...text, id: 'wamid.B' },
        { from: '5511987654321', ...text, id: 'wamid.A' },
      ],
    };
    expect(parseMetaWebhook(waba(value)).map((e) => [e.providerMessageId, e.from, e.bsuid, e.contactName, e.username])).toEqual([
      ['wamid.B', '', 'BR.2222', 'Bia', '@bia'],
      ['wamid.A', '5511987654321', 'BR.1111', 'Ana', ''],
    ]);
  });

  it('still yields a message that names neither a phone nor a BSUID, with an empty from', () => {
    expect(parseMetaWebhook(waba({ messages: [text] }))).toEqual([
      expect.objectContaining({ kind: 'message', from: '', bsuid: '', body: 'Does it come in another color?' }),
    ]);
  });

  it('links the phone a REQUEST_CONTACT_INFO reply shares to the BSUID of a sender Meta named without one', () => {
    const message = {
      from_user_id: BSUID,
      id: 'wamid.CR1',
      timestamp: '1749416383',
      type: 'contacts',
      origin: 'contact_request',
      contacts: [{ vcard: 'BEGIN:VCARD\nVERSION:3.0\nTEL;type=CELL:+1 650-555-1234\nEND:VCARD', phones: [{ phone: '+1 650-555-1234' }] }],
    };
    expect(
      parseMetaWebhook(
        waba({ contacts: [{ profile: { name: 'Sheena Nelson', username: '@realsheenanelson' }, user_id: BSUID }], messages: [message] }),
      ),
    ).toEqual([
      expect.objectContaining({
        from: WA_ID,
        bsuid: BSUID,
        messageType: 'contacts',
        body: '+1 650-555-1234',
        contactName: 'Sheena Nelson',
      }),
    ]);
  });

  it('prefers the shared card’s wa_id to its written phone, and reads the name beside it', () => {
    const message = {
      from_user_id: BSUID,
      ...text,
      type: 'contacts',
      origin: 'contact_request',
      contacts: [
        {
          name: { formatted_name: 'Sheena Nelson', first_name: 'Sheena' },
          phones: [{ phone: '+1 (650) 555-1234', wa_id: WA_ID, type: 'CELL' }],
        },
      ],
    };
    expect(parseMetaWebhook(waba({ contacts: [sheena], messages: [message] }))[0]).toMatchObject({
      from: WA_ID,
      bsuid: BSUID,
      messageType: 'contacts',
      body: 'Sheena Nelson: +1 (650) 555-1234',
    });
  });

  it('reads an ordinary shared contact as a contacts message with its names and phones, never as the sender', () => {
    const message = {
      from_user_id: BSUID,
      ...text,
      type: 'contacts',
      contacts: [
        {
          name: { formatted_name: 'John Smith' },
          phones: [
            { phone: '+1 (940) 555-1234', wa_id: '19405551234', type: 'HOME' },
            { phone: '+1 (650) 555-9999', type: 'WORK' },
          ],
        },
        { name: { formatted_name: 'Front desk' } },
      ],
    };
    expect(parseMetaWebhook(waba({ contacts: [sheena], messages: [message] }))[0]).toMatchObject({
      from: '',
      bsuid: BSUID,
      messageType: 'contacts',
      body: 'John Smith: +1 (940) 555-1234, +1 (650) 555-9999\nFront desk',
    });
  });

  it('keeps the sender’s own phone when a contact-request reply comes from a known number', () => {
    const message = {
      from: WA_ID,
      from_user_id: BSUID,
      ...text,
      type: 'contacts',
      origin: 'contact_request',
      contacts: [{ phones: [{ phone: '+55 11 98765-4321', wa_id: '5511987654321' }] }],
    };
    expect(
      parseMetaWebhook(waba({ contacts: [{ wa_id: WA_ID, user_id: BSUID, profile: { name: 'Pablo' } }], messages: [message] }))[0],
    ).toMatchObject({ from: WA_ID, bsuid: BSUID });
  });
});

describe('parseMetaWebhook: WhatsApp statuses with business-scoped user ids', () => {
  const pricing = { billable: true, pricing_model: 'PMP', type: 'regular', category: 'marketing' };
  const pablo = { profile: { name: 'Pablo M.', username: '@pablomorales' }, wa_id: WA_ID, user_id: BSUID, parent_user_id: PARENT };

  it('reads a delivered status of a message sent to the phone, with the BSUID and parent Meta add', () => {
    const s = {
      id: 'wamid.OUT1',
      status: 'delivered',
      timestamp: '1750030073',
      recipient_id: WA_ID,
      recipient_user_id: BSUID,
      parent_recipient_user_id: PARENT,
      pricing,
    };
    expect(parseMetaWebhook(waba({ contacts: [pablo], statuses: [s] }))).toEqual([
      {
        kind: 'status',
        channelType: 'waba',
        accountId: PHONE_ID,
        from: WA_ID,
        bsuid: BSUID,
        parentBsuid: PARENT,
        providerMessageId: 'wamid.OUT1',
        status: 'delivered',
        timestampMs: 1750030073000,
        error: '',
        pricing: { billable: true, pricingModel: 'PMP', category: 'marketing' },
        rawJson: JSON.stringify(s),
      },
    ]);
  });

  it('reads a status of a message sent to the BSUID when Meta shares no phone (no recipient_id, no wa_id)', () => {
    const { wa_id: _phone, ...noPhone } = pablo;
    const s = { id: 'wamid.OUT2', status: 'read', timestamp: '1750030073', recipient_user_id: BSUID, parent_user_id: PARENT, pricing };
    expect(parseMetaWebhook(waba({ contacts: [noPhone], statuses: [s] }))[0]).toMatchObject({
      kind: 'status',
      from: '',
      bsuid: BSUID,
      parentBsuid: PARENT,
      status: 'read',
    });
  });

  it('reads a status of a message sent to the parent BSUID as the parent, the BSUID coming from contacts', () => {
    const s = {
      id: 'wamid.OUT3',
      status: 'delivered',
      timestamp: '1750030073',
      recipient_user_id: PARENT,
      recipient_parent_user_id: PARENT,
      pricing,
    };
    expect(parseMetaWebhook(waba({ contacts: [pablo], statuses: [s] }))[0]).toMatchObject({
      from: WA_ID,
      bsuid: BSUID,
      parentBsuid: PARENT,
    });
  });

  it('reads a sent status naming only the phone: the BSUID comes from the contacts entry of that wa_id', () => {
    const s = { id: 'wamid.OUT4', status: 'sent', timestamp: '1750030073', recipient_id: WA_ID, pricing };
    expect(parseMetaWebhook(waba({ contacts: [{ ...pablo, profile: { name: 'Pablo M.' } }], statuses: [s] }))[0]).toMatchObject({
      from: WA_ID,
      bsuid: BSUID,
      parentBsuid: PARENT,
    });
  });

  it('reads a failed status, which comes without contacts, by its recipient_user_id', () => {
    const s = {
      id: 'wamid.OUT5',
      status: 'failed',
      timestamp: '1750030073',
      recipient_user_id: BSUID,
      errors: [{ code: 131026, title: 'Message undeliverable' }],
    };
    expect(parseMetaWebhook(waba({ statuses: [s] }))[0]).toMatchObject({
      from: '',
      bsuid: BSUID,
      parentBsuid: '',
      status: 'failed',
      error: '(#131026) Message undeliverable',
    });
  });
});

// ---- Messenger and Instagram ----------------------------------------------------------------

const PAGE_ID = '1234567890';
const PSID = '24075368705412345';

/** One Messenger (page) or Instagram POST with the given messaging events. */
const social = (object: 'page' | 'instagram', ...messaging: Record<string, unknown>[]) => ({
  object,
  entry: [{ id: PAGE_ID, time: 1583173667623, messaging }],
});
const event = (fields: Record<string, unknown>) => ({
  sender: { id: PSID },
  recipient: { id: PAGE_ID },
  timestamp: 1583173666767,
  ...fields,
});
const socialBase = (channelType: string, e: Record<string, unknown>) => ({
  channelType,
  accountId: PAGE_ID,
  from: PSID,
  timestampMs: 1583173666767,
  rawJson: JSON.stringify(e),
});

describe('parseMetaWebhook: Messenger (social_b) and Instagram (social_a)', () => {
  it.each([
    ['page', 'social_b'],
    ['instagram', 'social_a'],
  ] as const)('reads a %s text message as %s with the page/account id', (object, channelType) => {
    const e = event({ message: { mid: 'm_1', text: 'This is a text message' } });
    expect(parseMetaWebhook(social(object, e))).toEqual([
      {
        kind: 'message',
        ...socialBase(channelType, e),
        providerMessageId: 'm_1',
        replyTo: '',
        messageType: 'text',
        body: 'This is a text message',
      },
    ]);
  });

  it.each([['page'], ['instagram']] as const)('reads an echo of the page (%s) as an outgoing message of its recipient', (object) => {
    const echo = {
      sender: { id: PAGE_ID },
      recipient: { id: PSID },
      timestamp: 1,
      message: { mid: 'm_echo', is_echo: true, app_id: 1517776481860111, text: 'sent by us' },
    };
    const e = event({ message: { mid: 'm_2', text: 'from the contact' } });
    const [first, second] = parseMetaWebhook(social(object, echo, e));
    expect(first).toMatchObject({
      kind: 'message',
      fromMe: true,
      from: PSID,
      providerMessageId: 'm_echo',
      body: 'sent by us',
      messageType: 'text',
    });
    expect(second).toMatchObject({ kind: 'message', from: PSID, providerMessageId: 'm_2' });
    expect(second.fromMe).toBeUndefined();
  });

  it('reads a reaction (react, unreact) on the message mid, with an id from sender and time', () => {
    const react = event({ reaction: { mid: 'm_ours', action: 'react', reaction: 'love', emoji: '❤️' } });
    const unreact = { ...event({ reaction: { mid: 'm_ours', action: 'unreact' } }), timestamp: 1458668857000 };
    expect(parseMetaWebhook(social('page', react, unreact))).toEqual([
      expect.objectContaining({
        kind: 'reaction',
        from: PSID,
        targetId: 'm_ours',
        body: '❤️',
        providerMessageId: `reaction:${PSID}:${react.timestamp}`,
      }),
      expect.objectContaining({ kind: 'reaction', targetId: 'm_ours', body: '', providerMessageId: `reaction:${PSID}:1458668857000` }),
    ]);
  });

  it('reads message_edit as an edit and an Instagram unsend (is_deleted) as a deletion', () => {
    const edit = event({ message_edit: { mid: 'm_theirs', text: 'edited text', num_edit: 1 } });
    const unsend = event({ message: { mid: 'm_theirs', is_deleted: true } });
    expect(parseMetaWebhook(social('instagram', edit, unsend))).toEqual([
      expect.objectContaining({
        kind: 'edit',
        channelType: 'social_a',
        targetId: 'm_theirs',
        body: 'edited text',
        providerMessageId: 'edit:m_theirs:1',
      }),
      expect.objectContaining({ kind: 'delete', targetId: 'm_theirs' }),
    ]);
  });

  it('reads a quick-reply tap with its payload as body', () => {
    const e = event({ message: { mid: 'm_3', text: 'Red', quick_reply: { payload: 'COLOR_RED' } } });
    expect(parseMetaWebhook(social('page', e))).toEqual([
      {
        kind: 'message',
        ...socialBase('social_b', e),
        providerMessageId: 'm_3',
        replyTo: '',
        messageType: 'quick_reply',
        body: 'COLOR_RED',
      },
    ]);
  });

  it.each([
    ['image', {}, 'image', 'image/*'],
    ['video', {}, 'video', 'video/*'],
    ['audio', {}, 'audio', 'audio/*'],
    ['file', {}, 'document', 'application/octet-stream'],
    ['image', { sticker_id: 369239263222822 }, 'sticker', 'image/*'],
    ['share', {}, 'unknown', ''],
  ])('reads a %s attachment %j as %s with its URL and MIME class', (type, extra, messageType, mimeType) => {
    const e = event({
      message: { mid: 'm_4', attachments: [{ type, payload: { url: 'https://scontent.xx.fbcdn.net/v/x.jpg', ...extra } }] },
    });
    expect(parseMetaWebhook(social('page', e))).toEqual([
      {
        kind: 'message',
        ...socialBase('social_b', e),
        providerMessageId: 'm_4',
        replyTo: '',
        messageType,
        body: '',
        mediaUrl: 'https://scontent.xx.fbcdn.net/v/x.jpg',
        mimeType,
      },
    ]);
  });

  it('reads reply_to.mid of a reply', () => {
    const e = event({ message: { mid: 'm_5', text: 'yes', reply_to: { mid: 'm_ours' } } });
    expect(parseMetaWebhook(social('instagram', e))[0]).toMatchObject({ replyTo: 'm_ours', body: 'yes' });
  });

  it('reads a postback with its payload as body and its mid', () => {
    const e = event({ postback: { mid: 'm_6', title: 'Talk to an agent', payload: 'AGENT' } });
    expect(parseMetaWebhook(social('page', e))).toEqual([
      { kind: 'message', ...socialBase('social_b', e), providerMessageId: 'm_6', messageType: 'postback', body: 'AGENT' },
    ]);
  });

  it('gives a postback without mid a stable id derived from sender and time', () => {
    const e = event({ postback: { title: 'Get Started', payload: 'GET_STARTED' } });
    const first = parseMetaWebhook(social('page', e));
    expect(first[0].providerMessageId).toBe(`postback:${PSID}:1583173666767`);
    expect(parseMetaWebhook(social('page', e))).toEqual(first);
  });

  it('reads a delivery as one delivered status per mid, at the watermark', () => {
    const e = event({ delivery: { mids: ['m_out1', 'm_out2'], watermark: 1458668856253 } });
    const base = { kind: 'status', ...socialBase('social_b', e), status: 'delivered', timestampMs: 1458668856253 };
    expect(parseMetaWebhook(social('page', e))).toEqual([
      { ...base, providerMessageId: 'm_out1' },
      { ...base, providerMessageId: 'm_out2' },
    ]);
  });

  it('reads a Messenger read (a watermark, no mid) as one read status with an empty id and the watermark as time', () => {
    const e = event({ read: { watermark: 1458668856253 } });
    expect(parseMetaWebhook(social('page', e))).toEqual([
      { kind: 'status', ...socialBase('social_b', e), providerMessageId: '', status: 'read', timestampMs: 1458668856253 },
    ]);
  });

  it('reads an Instagram read with the mid it names', () => {
    const e = event({ read: { mid: 'm_out3' } });
    expect(parseMetaWebhook(social('instagram', e))).toEqual([
      { kind: 'status', ...socialBase('social_a', e), providerMessageId: 'm_out3', status: 'read', timestampMs: 1583173666767 },
    ]);
  });

  it('reads a customer-feedback answer as a feedback message whose body is the score', () => {
    // Meta's sample has no event timestamp: the entry's time stands in.
    const e = {
      sender: { id: PSID },
      recipient: { id: PAGE_ID },
      messaging_feedback: {
        feedback_screens: [
          {
            screen_id: 0,
            questions: { csat_1: { type: 'csat', payload: '5', follow_up: { type: 'free_form', payload: 'I am very satisfied!' } } },
          },
        ],
      },
    };
    expect(parseMetaWebhook(social('page', e))).toEqual([
      {
        kind: 'message',
        channelType: 'social_b',
        accountId: PAGE_ID,
        from: PSID,
        timestampMs: 1583173667623,
        rawJson: JSON.stringify(e),
        providerMessageId: `feedback:${PSID}:1583173667623`,
        messageType: 'feedback',
        body: '5',
      },
    ]);
  });

  it('reads several entries of one POST, each event naming its own page', () => {
    const body = {
      object: 'page',
      entry: [
        { id: 'PAGE_A', time: 1, messaging: [event({ message: { mid: 'm_a', text: 'a' } })] },
        {
          id: 'PAGE_B',
          time: 2,
          messaging: [event({ message: { mid: 'm_b', text: 'b' } }), event({ delivery: { mids: ['m_c'], watermark: 3 } })],
        },
      ],
    };
    expect(parseMetaWebhook(body).map((e) => [e.accountId, e.kind, e.providerMessageId])).toEqual([
      ['PAGE_A', 'message', 'm_a'],
      ['PAGE_B', 'message', 'm_b'],
      ['PAGE_B', 'status', 'm_c'],
    ]);
  });

  it('ignores events it does not use (optin, referral)', () => {
    const body = social('page', event({ optin: { ref: 'x' } }), event({ referral: { ref: 'ad', source: 'ADS', type: 'OPEN_THREAD' } }));
    expect(parseMetaWebhook(body)).toEqual([]);
  });
});

describe('parseMetaWebhook: anything else', () => {
  it.each([
    ['null', null],
    ['a list', []],
    ['another object', { object: 'user', entry: [{ id: '1', changes: [] }] }],
    ['an envelope without entries', { object: 'page' }],
    ['entries of the wrong shape', { object: 'whatsapp_business_account', entry: [null, 3, { changes: 'x' }] }],
  ])('yields no event for %s', (_label, body) => {
    expect(parseMetaWebhook(body)).toEqual([]);
  });
});
