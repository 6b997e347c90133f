import * as grpc from '@grpc/grpc-js';
import type { ServiceClient } from '@convo/kit';
import { errCode, rpcError, startFakeProvider, type FakeProvider, type ProviderReply, type ProviderRequest } from '@convo/test-support';
import { randomUUID } from 'node:crypto';
import type { Connection } from 'mongoose';
import { startMessagingWithPeers, tenantWithEngine, type MessagingWithPeers } from '../support/peers';

// SendChange (sendReaction, editMessage, deleteMessage) with the real tickets, tenants,
// channel-engines and messaging services and a dispatcher, a fake engine_a server standing in for
// WhatsApp: accepted at once, delivered in the ticket's order after the message it names (with the
// message's provider id), and shown on the message once the engine took it.

let services: MessagingWithPeers;
let engine: FakeProvider;
let db: Connection;
let messaging: ServiceClient<'messaging'>;
let tickets: ServiceClient<'tickets'>;
let tenantId: number;
let channelId: number;
/** Sends answer 503 while this is above 0 (each refusal counts it down). */
let refuseSends = 0;

const reply = (req: ProviderRequest): ProviderReply => {
  const content = req.body?.content ?? {};
  if (!content.react && !content.edit && !content.delete && refuseSends > 0) {
    refuseSends--;
    return { status: 503, body: { error: 'busy' } };
  }
  return { status: 200, body: { key: { id: `WA-${req.body?.options?.messageId}` } } };
};

beforeAll(async () => {
  [services, engine] = await Promise.all([
    startMessagingWithPeers('messaging-changes-test', { DELIVERY_BACKOFF_BASE_MS: '50', DELIVERY_BACKOFF_MAX_MS: '100' }),
    startFakeProvider(reply),
  ]);
  db = services.messaging.db;
  messaging = services.messaging.client;
  tickets = services.tickets.client;
  ({ tenantId, channelId } = await tenantWithEngine(services.tenants.client, engine.url));
});
afterAll(async () => {
  await services?.stop();
  await engine?.close();
});
beforeEach(() => {
  engine.reset();
  refuseSends = 0;
});

let lastNumber = 0;
const newTicket = async () => {
  const number = `55119${String(30_000_000 + ++lastNumber)}`;
  const { ticket } = await tickets.CreateTicket({ tenantId, channelId, number });
  return ticket!;
};
const sent = async (ticketId: number, body = 'See you at 2 pm') => {
  const { messageId } = await messaging.SendByTicket({ tenantId, ticketId, body });
  return messageId;
};
const change = (over: Record<string, unknown>) =>
  messaging.SendChange({ tenantId, change: 'react', messageId: '', ticketId: 0, number: '', channelId: 0, emoji: '', body: '', ...over });
const changeDoc = (id: string) => db.collection<{ _id: string; status: string; error?: string }>('message_changes').findOne({ _id: id });
const until = async (check: () => Promise<boolean>) => {
  const deadline = Date.now() + 15_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('not settled within 15 s');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
};

describe('SendChange', () => {
  it('queues a reaction to a message just accepted, sends it after the message (by its provider id) and shows it', async () => {
    const ticket = await newTicket();
    // The message's first attempt fails: the reaction waits behind it, never sent with a missing id.
    refuseSends = 1;
    const messageId = await sent(ticket.id);
    const res = await change({ ticketId: ticket.id, messageId, emoji: '👍' });
    expect(res).toMatchObject({ ticketId: ticket.id, messageId, changeId: expect.any(String) });

    await until(async () => (await changeDoc(res.changeId))?.status === 'sent');
    const bodies = engine.requests.map((r) => r.body.content);
    expect(bodies.at(-1)).toEqual({
      react: { text: '👍', key: { remoteJid: expect.stringContaining('@s.whatsapp.net'), fromMe: true, id: `WA-${messageId}` } },
    });
    expect(bodies.findIndex((c) => c.text === 'See you at 2 pm')).toBeLessThan(bodies.length - 1);
    const message = await messaging.GetMessage({ tenantId, messageId });
    expect(message.reactions).toEqual([{ emoji: '👍', fromMe: true, at: expect.any(String) }]);

    // "" removes our reaction.
    const removal = await change({ ticketId: ticket.id, messageId, emoji: '' });
    await until(async () => (await changeDoc(removal.changeId))?.status === 'sent');
    expect(engine.requests.at(-1)!.body.content).toEqual({ react: { text: '', key: expect.objectContaining({ id: `WA-${messageId}` }) } });
    expect((await messaging.GetMessage({ tenantId, messageId })).reactions).toEqual([]);
  });

  it('edits the text (the old one in the history) and deletes for everyone', async () => {
    const ticket = await newTicket();
    const messageId = await sent(ticket.id);
    const edit = await change({ change: 'edit', messageId, body: 'See you at 3 pm' });
    const removal = await change({ change: 'delete', messageId });
    await until(async () => (await changeDoc(removal.changeId))?.status === 'sent');
    expect((await changeDoc(edit.changeId))?.status).toBe('sent');

    const key = { remoteJid: expect.any(String), fromMe: true, id: `WA-${messageId}` };
    expect(engine.requests.slice(-2).map((r) => r.body.content)).toEqual([{ edit: key, text: 'See you at 3 pm' }, { delete: key }]);
    const message = await messaging.GetMessage({ tenantId, messageId });
    expect(message).toMatchObject({ body: 'See you at 3 pm', edited: true, deleted: true });
    expect(message.editHistory).toEqual([{ body: 'See you at 2 pm', at: expect.any(String) }]);
  });

  it("refuses an unknown message, another tenant's, and one not of the ticket named: ERR_MESSAGE_NOT_FOUND", async () => {
    const ticket = await newTicket();
    const messageId = await sent(ticket.id);
    const other = await newTicket();
    for (const req of [
      { ticketId: ticket.id, messageId: randomUUID(), emoji: '👍' },
      { tenantId: tenantId + 1000, ticketId: ticket.id, messageId, emoji: '👍' },
      { ticketId: other.id, messageId, emoji: '👍' },
      { number: '5511999990000', channelId, messageId, emoji: '👍' },
      { change: 'delete', tenantId: tenantId + 1000, messageId },
    ]) {
      const err = await rpcError(change(req));
      expect(err.code).toBe(grpc.status.NOT_FOUND);
      expect(errCode(err)).toBe('ERR_MESSAGE_NOT_FOUND');
    }
    expect(await db.collection('message_changes').countDocuments({ 'change.targetId': messageId })).toBe(0);
  });

  it("finds the message by the contact's number on the integration's channel", async () => {
    const ticket = await newTicket();
    const messageId = await sent(ticket.id);
    const res = await change({ number: ticket.contact!.number, channelId, messageId, emoji: '🙏' });
    expect(res.ticketId).toBe(ticket.id);
  });

  it("refuses to edit or delete the contact's message (ERR_MESSAGE_NOT_FROM_ME) but reacts to it", async () => {
    const ticket = await newTicket();
    const providerMessageId = `3EB0${randomUUID()}`;
    const [result] = (
      await messaging.IngestEvents({
        events: [
          {
            kind: 'message',
            channelId,
            channelType: 'engine_a',
            from: ticket.contact!.number,
            providerMessageId,
            body: 'Hi',
            messageType: 'text',
            timestampMs: Date.now(),
          },
        ],
      })
    ).results;
    for (const kind of ['edit', 'delete']) {
      const err = await rpcError(change({ change: kind, messageId: result.messageId, body: 'x' }));
      expect(err.code).toBe(grpc.status.INVALID_ARGUMENT);
      expect(errCode(err)).toBe('ERR_MESSAGE_NOT_FROM_ME');
    }
    const res = await change({ ticketId: result.ticketId, messageId: result.messageId, emoji: '❤️' });
    await until(async () => (await changeDoc(res.changeId))?.status === 'sent');
    expect(engine.requests.at(-1)!.body.content.react.key).toMatchObject({ fromMe: false, id: providerMessageId });
  });

  it('refuses a change the channel kind cannot make: ERR_CHANNEL_MISMATCH, nothing queued', async () => {
    // whatsapp-web.js REST reacts and deletes but has no edit route.
    const { whatsapp } = await services.tenants.client.CreateSession({
      tenant: tenantId,
      name: 'whatsapp-web.js REST',
      type: 'whatsapp',
      engineUrl: `${engine.url}/sess`,
      engineToken: 'tok',
    });
    const { ticket } = await tickets.CreateTicket({
      tenantId,
      channelId: whatsapp!.id,
      number: `55119${String(31_000_000 + ++lastNumber)}`,
    });
    const messageId = await sent(ticket!.id);
    {
      const err = await rpcError(change({ change: 'edit', messageId, body: 'New' }));
      expect(err.code).toBe(grpc.status.INVALID_ARGUMENT);
      expect(errCode(err)).toBe('ERR_CHANNEL_MISMATCH');
    }
    expect(await db.collection('message_changes').countDocuments({ 'change.targetId': messageId })).toBe(0);
  });

  it('refuses what the request leaves out or overruns', async () => {
    const ticket = await newTicket();
    const messageId = await sent(ticket.id);
    for (const req of [
      { change: 'pin', messageId },
      { change: 'edit', messageId, body: '   ' },
      { change: 'edit', messageId, body: 'x'.repeat(4097) },
      { ticketId: ticket.id, messageId, emoji: '👍'.repeat(33) },
      { ticketId: ticket.id, messageId: '' },
    ]) {
      const err = await rpcError(change(req));
      expect(errCode(err)).toBe('ERR_VALIDATION');
    }
  });
});
