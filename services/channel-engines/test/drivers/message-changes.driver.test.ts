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
