import { MESSAGE_CHANGES, type MessageChange } from '@convo/kit';
import { startFakeProvider, type FakeProvider } from '@convo/test-support';
import { createConnection } from 'mongoose';
import { failure, settingsWith } from '../support/driver-fixtures';
import { ANY_ANSWER, caseChannel, type DriverCase, driverCases, PROVIDER_ID } from '../support/driver-cases';
import type { Change } from '../../src/drivers/driver';
import { createDrivers } from '../../src/drivers';
import { SocialDriver } from '../../src/drivers/social.driver';

// Reactions, edits and deletions for everyone (sendChange), per driver, against one recording fake
// provider: the request each provider's own contract asks for (message-changes.ts names the sources).

let provider: FakeProvider;
beforeAll(async () => {
  provider = await startFakeProvider(() => ({ status: 200, body: ANY_ANSWER }));
});
afterAll(() => provider.close());
beforeEach(() => provider.reset());

const TO = '5511987654321';
const JID = `${TO}@s.whatsapp.net`;
const TARGET = 'WAMID-TARGET-1';

const cases: Record<string, DriverCase> = {
  ...driverCases(() => provider.url),
  social_a: {
    kind: 'social_a',
    driver: () => new SocialDriver('social_a', settingsWith(500, { metaGraphUrl: provider.url })),
    channel: { pageId: 'PAGE1', pageToken: 'page-token' },
  },
};

function change(kind: string, over: Partial<Change> & { change: MessageChange }) {
  const c = cases[kind];
  return c.driver().sendChange!({
    channel: caseChannel(provider.url, c),
    to: TO,
    targetId: TARGET,
    targetFromMe: true,
    emoji: '',
    text: '',
    reference: 'change-1',
    ...over,
  });
}
const seen = () => provider.requests.map((r) => ({ method: r.method, url: r.url, body: r.body }));
const key = { remoteJid: JID, fromMe: true, id: TARGET };

describe('reactions', () => {
  it.each([
    [
      'waba',
      'POST',
      '/1065/messages',
      {
        messaging_product: 'whatsapp',
        recipient_type: 'individual',
        to: TO,
        type: 'reaction',
        reaction: { message_id: TARGET, emoji: '👍' },
      },
    ],
    [
      'social_b',
      'POST',
      '/PAGE1/messages',
      { recipient: { id: TO }, sender_action: 'react', payload: { message_id: TARGET, reaction: '👍' } },
    ],
    ['engine_a', 'POST', '/messages', { jid: JID, content: { react: { text: '👍', key } }, options: { messageId: 'change-1' } }],
    ['engine_b', 'POST', '/message/sendReaction/acme', { key, reaction: '👍' }],
    ['engine_c', 'POST', '/message/react', { number: TO, text: '👍', id: TARGET }],
    ['engine_h', 'POST', '/message/sendReaction/acme', { reactionMessage: { key, reaction: '👍' } }],
  ])('%s sends the reaction', async (kind, method, url, body) => {
    const delivered = await change(kind, { change: 'react', emoji: '👍' });
    expect(seen()).toEqual([{ method, url, body }]);
    // Where the provider answers an id of the reaction's own, it is kept; Messenger's sender action has none but its message_id.
    expect(delivered.providerMessageId).toBe(PROVIDER_ID);
  });

  it.each([
    [
      'waba',
      {
        messaging_product: 'whatsapp',
        recipient_type: 'individual',
        to: TO,
        type: 'reaction',
        reaction: { message_id: TARGET, emoji: '' },
      },
    ],
    ['social_b', { recipient: { id: TO }, sender_action: 'unreact', payload: { message_id: TARGET } }],
    ['engine_a', { jid: JID, content: { react: { text: '', key } }, options: { messageId: 'change-1' } }],
    ['engine_b', { key, reaction: '' }],
    ['engine_c', { number: TO, text: '', id: TARGET }],
  ])('%s removes it with ""', async (kind, body) => {
    await change(kind, { change: 'react', emoji: '' });
    expect(seen().map((r) => r.body)).toEqual([body]);
  });

  it("keys the contact's message with fromMe false", async () => {
    await change('engine_b', { change: 'react', emoji: '❤️', targetFromMe: false });
    expect(seen()[0].body).toEqual({ key: { ...key, fromMe: false }, reaction: '❤️' });
  });

  it('Instagram reacts with "love" for a heart and refuses other emoji before any call', async () => {
    await change('social_a', { change: 'react', emoji: '❤️' });
    expect(seen()[0].body).toEqual({ recipient: { id: TO }, sender_action: 'react', payload: { message_id: TARGET, reaction: 'love' } });
    provider.reset();
    const err = await failure(change('social_a', { change: 'react', emoji: '👍' }));
    expect(err.code).toBe('ERR_VALIDATION');
    expect(provider.requests).toHaveLength(0);
  });
});

// The engines of engine-changes.ts, each from its own source: WuzAPI (handlers.go), WPPConnect Server
// (routes/index.ts, device/messageController.ts), Z-API (z-api-docs), WAHA (chatting/chats
// controllers), whatsapp-web.js REST (chrishubert/whatsapp-api messageController.js).
const WAHA_MESSAGE = `/api/default/chats/${TO}%40c.us/messages/${TARGET}`;
const other = (kind: string, what: MessageChange, emoji: string, text = '') => change(kind, { change: what, emoji, text });

describe('the other engines', () => {
  it.each([
    ['engine_d', 'POST', '/chat/react', { Phone: TO, Body: '👍', Id: `me:${TARGET}` }, ''],
    ['engine_e', 'POST', '/api/sess/react-message', { msgId: TARGET, reaction: '👍' }, ''],
    ['engine_f', 'POST', '/send-reaction', { phone: TO, reaction: '👍', messageId: TARGET }, PROVIDER_ID],
    ['engine_g', 'PUT', '/api/reaction', { session: 'default', messageId: TARGET, reaction: '👍' }, ''],
    ['whatsapp', 'POST', '/message/react/sess', { chatId: `${TO}@c.us`, messageId: TARGET, reaction: '👍' }, ''],
  ])('%s sends the reaction', async (kind, method, url, body, id) => {
    const delivered = await other(kind, 'react', '👍');
    expect(seen()).toEqual([{ method, url, body }]);
    // Only Z-API answers an id of the change's own; WuzAPI's answer names the target.
    expect(delivered.providerMessageId).toBe(id);
  });

  it.each([
    ['engine_d', '/chat/react', { Phone: TO, Body: 'remove', Id: `me:${TARGET}` }],
    ['engine_e', '/api/sess/react-message', { msgId: TARGET, reaction: false }],
    ['engine_f', '/send-remove-reaction', { phone: TO, messageId: TARGET }],
    ['engine_g', '/api/reaction', { session: 'default', messageId: TARGET, reaction: '' }],
    ['whatsapp', '/message/react/sess', { chatId: `${TO}@c.us`, messageId: TARGET, reaction: '' }],
  ])('%s removes it in its own way', async (kind, url, body) => {
    await other(kind, 'react', '');
    expect(seen().map((r) => ({ url: r.url, body: r.body }))).toEqual([{ url, body }]);
  });

  it.each([
    ['engine_d', 'edit', 'POST', '/chat/send/edit', { Phone: TO, Body: 'New text', Id: TARGET }],
    ['engine_d', 'delete', 'POST', '/chat/delete', { Phone: TO, Id: TARGET }],
    ['engine_e', 'edit', 'POST', '/api/sess/edit-message', { id: TARGET, newText: 'New text' }],
    ['engine_e', 'delete', 'POST', '/api/sess/delete-message', { phone: TO, isGroup: false, messageId: TARGET }],
    ['engine_f', 'edit', 'POST', '/send-text', { phone: TO, message: 'New text', editMessageId: TARGET }],
    ['engine_f', 'delete', 'DELETE', `/messages?messageId=${TARGET}&phone=${TO}&owner=true`, ''],
    ['engine_g', 'edit', 'PUT', WAHA_MESSAGE, { text: 'New text' }],
    ['engine_g', 'delete', 'DELETE', WAHA_MESSAGE, ''],
    ['whatsapp', 'delete', 'POST', '/message/delete/sess', { chatId: `${TO}@c.us`, messageId: TARGET, everyone: true }],
  ])('%s %s', async (kind, what, method, url, body) => {
    await other(kind, what as MessageChange, '', what === 'edit' ? 'New text' : '');
    expect(seen()).toEqual([{ method, url, body }]);
  });

  it("keys the contact's message without WuzAPI's me: prefix, and Z-API deletes it with owner=false", async () => {
    await change('engine_d', { change: 'react', emoji: '❤️', targetFromMe: false });
    await change('engine_f', { change: 'delete', targetFromMe: false });
    expect(seen().map((r) => r.body?.Id ?? r.url)).toEqual([TARGET, `/messages?messageId=${TARGET}&phone=${TO}&owner=false`]);
  });

  it("whatsapp-web.js REST finds the message by its short id: the serialised id's last part", async () => {
    await change('whatsapp', { change: 'react', emoji: '👍', targetId: `true_${TO}@c.us_3EB0A9E6C5F1D2B3A4C5` });
    expect(seen()[0].body.messageId).toBe('3EB0A9E6C5F1D2B3A4C5');
  });

  it('a LID chat is named by its own JID', async () => {
    const lid = '123456789012345@lid';
    await change('engine_g', { change: 'delete', to: lid });
    await change('engine_e', { change: 'delete', to: lid });
    expect(seen().map((r) => r.url)[0]).toBe(`/api/default/chats/${encodeURIComponent(lid)}/messages/${TARGET}`);
    expect(seen()[1].body.phone).toBe(lid);
  });
});

describe('edits and deletions for everyone', () => {
  it.each([
    ['engine_a', 'edit', 'POST', '/messages', { jid: JID, content: { edit: key, text: 'New text' }, options: { messageId: 'change-1' } }],
    ['engine_a', 'delete', 'POST', '/messages', { jid: JID, content: { delete: key }, options: { messageId: 'change-1' } }],
    ['engine_b', 'edit', 'POST', '/chat/updateMessage/acme', { number: TO, key, text: 'New text' }],
    ['engine_b', 'delete', 'DELETE', '/chat/deleteMessageForEveryone/acme', key],
    ['engine_c', 'edit', 'POST', '/message/edit', { id: TARGET, text: 'New text' }],
    ['engine_c', 'delete', 'POST', '/message/delete', { id: TARGET }],
    ['engine_h', 'edit', 'PUT', '/chat/updateMessage/acme', { number: TO, key, text: 'New text' }],
    ['engine_h', 'delete', 'DELETE', '/chat/deleteMessageForEveryone/acme', key],
  ])('%s %s', async (kind, what, method, url, body) => {
    await change(kind, { change: what as MessageChange, text: what === 'edit' ? 'New text' : '' });
    expect(seen()).toEqual([{ method, url, body }]);
  });

  it('an edit without text is refused before any call', async () => {
    const err = await failure(change('engine_b', { change: 'edit', text: '' }));
    expect(err.code).toBe('ERR_VALIDATION');
    expect(provider.requests).toHaveLength(0);
  });

  it("a provider's refusal is the driver's failure, transient when a retry may help", async () => {
    const refusing = await startFakeProvider(() => ({ status: 503, body: { error: 'busy' } }));
    try {
      const c = cases.engine_c;
      const err = await failure(
        c.driver().sendChange!({
          channel: caseChannel(refusing.url, c),
          to: TO,
          change: 'delete',
          targetId: TARGET,
          targetFromMe: true,
          emoji: '',
          text: '',
          reference: 'change-1',
        }),
      );
      expect(err.code).toBe('ERR_PROVIDER_FAILED');
      expect(err.details?.[0]).toMatchObject({ transient: true, status: 503 });
    } finally {
      await refusing.close();
    }
  });
});

describe('the kit table MESSAGE_CHANGES', () => {
  it('lists exactly the drivers that send changes', () => {
    // An unopened connection: the web chat driver registers its model and is never asked to store.
    const conn = createConnection();
    const drivers = createDrivers(settingsWith(500), conn);
    void conn.close();
    const withChanges = drivers.filter((d) => d.sendChange).map((d) => d.kind);
    expect(withChanges.sort()).toEqual(Object.keys(MESSAGE_CHANGES).sort());
  });
});
