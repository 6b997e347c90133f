import type { proto, ServiceClient } from '@convo/kit';
import { startFakeProvider, type FakeProvider } from '@convo/test-support';
import { randomUUID } from 'node:crypto';
import type { Connection } from 'mongoose';
import { messageEventId } from '../../src/outbox/events';
import { startMessagingWithPeers, type MessagingWithPeers } from '../support/peers';

// The whole conversation through IngestEvents, with the real messaging service and its peers: what
// the business sent from elsewhere (echoes), reactions, edits and deletions.

type InboundEvent = proto.channelEngines.InboundEvent;

let services: MessagingWithPeers;
let engine: FakeProvider;
let db: Connection;
let messaging: ServiceClient<'messaging'>;
let tenants: ServiceClient<'tenants'>;
let tenantId: number;
let channel: proto.tenants.Channel__Output;
let other: proto.tenants.Channel__Output;

const ingest = async (...events: InboundEvent[]) => (await messaging.IngestEvents({ events })).results;
const outbox = () => db.collection<{ _id: string; method: string; body: string }>('outbox');
const messages = () => db.collection<Record<string, unknown> & { _id: string }>('messages');
let lastNumber = 0;
const newNumber = () => `55219${String(50_000_000 + ++lastNumber)}`;
const text = (from: string, body: string, extra: Partial<InboundEvent> = {}): InboundEvent => ({
  kind: 'message',
  channelId: channel.id,
  channelType: 'engine_a',
  from,
  providerMessageId: `3EB0${randomUUID()}`,
  body,
  messageType: 'text',
  timestampMs: Date.now(),
  ...extra,
});
const change = (kind: string, from: string, targetId: string, extra: Partial<InboundEvent> = {}): InboundEvent => ({
  kind,
  channelId: channel.id,
  channelType: 'engine_a',
  from,
  targetId,
  providerMessageId: `3EB0${randomUUID()}`,
  timestampMs: Date.now(),
  ...extra,
});

beforeAll(async () => {
  engine = await startFakeProvider(() => ({ status: 200, body: { key: { id: `WA-${randomUUID()}` } } }));
  services = await startMessagingWithPeers('messaging-conversation-test', { CHANNEL_CACHE_MS: '0' });
  db = services.messaging.db;
  messaging = services.messaging.client;
  tenants = services.tenants.client;
  const { tenant } = await tenants.StoreTenant({
    status: 'active',
    name: 'Echo Co',
    maxUsers: 5,
    maxConnections: 0,
    acceptTerms: true,
    email: 'owner@echo.example',
    password: 'secret-pass1',
    userName: 'Owner',
    profile: 'admin',
  });
  tenantId = tenant!.id;
  const hook = { webhookEnabled: true, webhookUrl: 'https://hooks.example/in', webhookIncoming: true };
  channel = (
    await tenants.CreateSession({ tenant: tenantId, name: 'Engine', type: 'engine_a', engineUrl: engine.url, engineToken: 'tok', ...hook })
  ).whatsapp!;
  const { tenant: second } = await tenants.StoreTenant({
    status: 'active',
    name: 'Other Co',
    maxUsers: 5,
    maxConnections: 0,
    acceptTerms: true,
    email: 'owner@other.example',
    password: 'secret-pass1',
    userName: 'Owner',
    profile: 'admin',
  });
  other = (
    await tenants.CreateSession({
      tenant: second!.id,
      name: 'Other',
      type: 'engine_a',
      engineUrl: engine.url,
      engineToken: 'tok3',
      ...hook,
    })
  ).whatsapp!;
});

afterAll(async () => {
  await services?.stop();
  await engine?.close();
});

describe('IngestEvents: messages sent from elsewhere', () => {
  it('stores a fromMe message once as an outgoing message of the contact ticket, forwarded with fromMe true', async () => {
    const from = newNumber();
    const [contact] = await ingest(text(from, 'hi'));
    const echo = text(from, 'typed on the phone', { fromMe: true });
    const [first] = await ingest(echo);
    expect(first).toMatchObject({
      outcome: 'stored',
      messageId: `echo:${channel.id}:${echo.providerMessageId}`,
      ticketId: contact.ticketId,
    });
    expect(await ingest(echo, echo)).toEqual([
      expect.objectContaining({ outcome: 'duplicate' }),
      expect.objectContaining({ outcome: 'duplicate' }),
    ]);
    const stored = await messaging.GetMessage({ tenantId, messageId: first.messageId });
    expect(stored).toMatchObject({
      direction: 'out',
      status: 'sent',
      body: 'typed on the phone',
      providerMessageId: echo.providerMessageId,
    });
    const events = await outbox()
      .find({ _id: messageEventId(first.messageId) })
      .toArray();
    expect(events).toHaveLength(1);
    expect(JSON.parse(events[0].body)).toMatchObject({
      method: 'message',
      msg: { fromMe: true, direction: 'out', body: 'typed on the phone' },
      ticket: { id: contact.ticketId },
    });
  });

  it('never stores the echo of our own send, even when it arrives before the provider answered the send', async () => {
    const from = newNumber();
    const [contact] = await ingest(text(from, 'hello'));
    const providerId = `3EB0${randomUUID()}`;
    // The engine answers the send with providerId; the echo of it is ingested as the message is
    // queued, before the dispatcher has sent it (so before the answer is recorded).
    engine.answer(() => ({ status: 200, body: { key: { id: providerId } } }));
    const now = new Date();
    const ours = {
      _id: `test-${randomUUID()}`,
      tenantId,
      ticketId: contact.ticketId,
      channelId: channel.id,
      direction: 'out',
      body: 'from the API',
      status: 'queued',
      to: from,
      attempts: 0,
      nextAttemptAt: null,
      createdAt: now,
      updatedAt: now,
    };
    await messages().insertOne(ours);
    const pending = ingest(text(from, 'from the API', { fromMe: true, providerMessageId: providerId }));
    await services.settled(tenantId, ours._id);
    engine.reset();
    expect(await pending).toEqual([{ outcome: 'duplicate', messageId: ours._id, ticketId: contact.ticketId }]);
    // ... and after the answer, a replay of the echo is the same message.
    expect(await ingest(text(from, 'from the API', { fromMe: true, providerMessageId: providerId }))).toEqual([
      { outcome: 'duplicate', messageId: ours._id, ticketId: contact.ticketId },
    ]);
    expect(await messages().countDocuments({ providerMessageId: providerId })).toBe(1);
    expect(await outbox().countDocuments({ _id: messageEventId(`echo:${channel.id}:${providerId}`) })).toBe(0);
  });
});

describe('IngestEvents: reactions, edits and deletions', () => {
  it('keeps one reaction per side, removes it with "", forwards each once; a replay changes nothing', async () => {
    const from = newNumber();
    const incoming = text(from, 'price?');
    const [stored] = await ingest(incoming);
    const love = change('reaction', from, incoming.providerMessageId, { body: '❤️', fromMe: true, timestampMs: 1_718_000_001_000 });
    expect((await ingest(love))[0]).toMatchObject({ outcome: 'reaction_applied', messageId: stored.messageId });
    expect((await ingest(love))[0]).toMatchObject({ outcome: 'duplicate' });
    let read = await messaging.GetMessage({ tenantId, messageId: stored.messageId });
    expect(read.reactions).toEqual([{ emoji: '❤️', fromMe: true, at: new Date(1_718_000_001_000).toISOString() }]);
    const removed = change('reaction', from, incoming.providerMessageId, { body: '', fromMe: true, timestampMs: 1_718_000_002_000 });
    await ingest(removed);
    read = await messaging.GetMessage({ tenantId, messageId: stored.messageId });
    expect(read.reactions).toEqual([]);
    const forwarded = (await outbox().find({ method: 'reaction' }).toArray())
      .map((e) => JSON.parse(e.body))
      .filter((b) => b.msg.messageId === stored.messageId);
    expect(forwarded.map((b) => b.msg.emoji).sort()).toEqual(['', '❤️']);
    expect(forwarded.find((b) => b.msg.emoji)).toMatchObject({
      method: 'reaction',
      msg: { messageId: stored.messageId, emoji: '❤️', fromMe: true },
      ticket: { id: stored.ticketId },
    });
  });

  it('an edit keeps the earlier text in editHistory (once, however often reported); a revoke marks deleted and keeps the content', async () => {
    const from = newNumber();
    const incoming = text(from, 'teh price', { timestampMs: 1_718_000_000_000 });
    const [stored] = await ingest(incoming);
    const edit = change('edit', from, incoming.providerMessageId, { body: 'the price', timestampMs: 1_718_000_010_000 });
    expect((await ingest(edit, edit))[1]).toMatchObject({ outcome: 'duplicate' });
    let read = await messaging.GetMessage({ tenantId, messageId: stored.messageId });
    expect(read).toMatchObject({
      body: 'the price',
      edited: true,
      editHistory: [{ body: 'teh price', at: new Date(1_718_000_000_000).toISOString() }],
      deleted: false,
    });
    const revoke = change('delete', from, incoming.providerMessageId);
    expect((await ingest(revoke))[0]).toMatchObject({ outcome: 'delete_applied' });
    expect((await ingest(revoke))[0]).toMatchObject({ outcome: 'duplicate' });
    read = await messaging.GetMessage({ tenantId, messageId: stored.messageId });
    expect(read).toMatchObject({ body: 'the price', deleted: true });
    const methods = (
      await outbox()
        .find({ method: { $in: ['edit', 'delete'] } })
        .toArray()
    )
      .map((e) => JSON.parse(e.body))
      .filter((b) => b.msg.messageId === stored.messageId);
    expect(methods.map((b) => b.method).sort()).toEqual(['delete', 'edit']);
    expect(methods.find((b) => b.method === 'edit').msg).toMatchObject({ messageId: stored.messageId, body: 'the price' });
  });

  it("never touches another tenant's message: a change names messages of its own channel only", async () => {
    const from = newNumber();
    const incoming = text(from, 'mine');
    const [stored] = await ingest(incoming);
    const foreign = { ...change('delete', from, incoming.providerMessageId), channelId: other.id };
    expect((await ingest(foreign))[0]).toMatchObject({ outcome: 'change_unknown_message' });
    expect((await messaging.GetMessage({ tenantId, messageId: stored.messageId })).deleted).toBe(false);
  });
});
