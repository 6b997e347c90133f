import type { proto, ServiceClient } from '@convo/kit';
import { startFakeProvider, type FakeProvider } from '@convo/test-support';
import { randomUUID } from 'node:crypto';
import type { Connection } from 'mongoose';
import { messageEventId, statusEventId } from '../../src/outbox/events';
import { startMessagingWithPeers, type MessagingWithPeers } from '../support/peers';

// IngestEvents through the real messaging service and its real peers (tickets, tenants,
// channel-engines for sends) on one database; an engine server on loopback accepts sends.

type InboundEvent = proto.channelEngines.InboundEvent;

let services: MessagingWithPeers;
let engine: FakeProvider;
let db: Connection;
let messaging: ServiceClient<'messaging'>;
let tickets: ServiceClient<'tickets'>;
let tenants: ServiceClient<'tenants'>;
let tenantId: number;
let engineChannel: proto.tenants.Channel__Output;
let waba: proto.tenants.Channel__Output;
let quiet: proto.tenants.Channel__Output;
let sent = 0;

const ingest = async (...events: InboundEvent[]) => (await messaging.IngestEvents({ events })).results;
const outbox = () => db.collection<{ _id: string; method: string; body: string; target: string; urlField: string }>('outbox');

beforeAll(async () => {
  engine = await startFakeProvider(() => ({ status: 200, body: { key: { id: `WA-${++sent}` } } }));
  services = await startMessagingWithPeers('messaging-ingest-test', { CHANNEL_CACHE_MS: '0' });
  db = services.messaging.db;
  messaging = services.messaging.client;
  tickets = services.tickets.client;
  tenants = services.tenants.client;

  const { tenant } = await tenants.StoreTenant({
    status: 'active',
    name: 'Inbound Co',
    maxUsers: 5,
    maxConnections: 0,
    acceptTerms: true,
    email: 'owner@inbound.example',
    password: 'secret-pass1',
    userName: 'Owner',
    profile: 'admin',
  });
  tenantId = tenant!.id;
  const hook = { webhookEnabled: true, webhookUrl: 'https://hooks.example/in', webhookIncoming: true };
  engineChannel = (
    await tenants.CreateSession({ tenant: tenantId, name: 'Engine', type: 'engine_a', engineUrl: engine.url, engineToken: 'tok', ...hook })
  ).whatsapp!;
  waba = (
    await tenants.CreateSession({
      tenant: tenantId,
      name: 'Official',
      type: 'waba',
      tokenApi: '1098765432',
      wabaId: 'W1',
      bmToken: 'bm',
      ...hook,
    })
  ).whatsapp!;
  quiet = (
    await tenants.CreateSession({ tenant: tenantId, name: 'No webhook', type: 'engine_a', engineUrl: engine.url, engineToken: 'tok2' })
  ).whatsapp!;
});

afterAll(async () => {
  await services?.stop();
  await engine?.close();
});

let lastNumber = 0;
const newNumber = () => `55219${String(40_000_000 + ++lastNumber)}`;
const wabaText = (from: string, body: string, id = `wamid.${randomUUID()}`): InboundEvent => ({
  kind: 'message',
  channelType: 'waba',
  accountId: waba.tokenApi,
  from,
  contactName: 'Ana',
  providerMessageId: id,
  body,
  messageType: 'text',
  timestampMs: 1_718_000_000_000,
  rawJson: JSON.stringify({ id, text: { body } }),
});
const engineText = (channelId: number, from: string, body: string, id = `3EB0${randomUUID()}`): InboundEvent => ({
  kind: 'message',
  channelId,
  channelType: 'engine_a',
  from,
  providerMessageId: id,
  body,
  messageType: 'text',
});

describe('IngestEvents: incoming messages', () => {
  it('stores a message once, however often it is delivered, with one customer event naming its ticket', async () => {
    const event = wabaText(newNumber(), 'Hello there');
    const [first] = await ingest(event);
    expect(first).toMatchObject({ outcome: 'stored', messageId: `in:${waba.id}:${event.providerMessageId}` });
    expect(first.ticketId).toBeGreaterThan(0);
    expect(await ingest(event, event)).toEqual([
      { outcome: 'duplicate', messageId: first.messageId, ticketId: first.ticketId },
      { outcome: 'duplicate', messageId: first.messageId, ticketId: first.ticketId },
    ]);
    expect(await db.collection('messages').countDocuments({ _id: first.messageId as never })).toBe(1);

    const stored = await messaging.GetMessage({ tenantId, messageId: first.messageId });
    expect(stored).toMatchObject({
      direction: 'in',
      body: 'Hello there',
      ticketId: first.ticketId,
      channelId: waba.id,
      providerMessageId: event.providerMessageId,
    });
    const events = await outbox()
      .find({ _id: messageEventId(first.messageId) })
      .toArray();
    expect(events).toHaveLength(1);
    const body = JSON.parse(events[0].body);
    expect(body).toMatchObject({
      method: 'message',
      msg: {
        messageId: first.messageId,
        ticketId: first.ticketId,
        whatsappId: waba.id,
        body: 'Hello there',
        from: event.from,
        contactName: 'Ana',
        type: 'text',
        raw: { id: event.providerMessageId },
      },
      ticket: { id: first.ticketId, status: 'pending', whatsappId: waba.id, contact: { number: event.from } },
    });
  });

  it('stores concurrent deliveries of one message once, and distinct messages with one text apart', async () => {
    const from = newNumber();
    const event = wabaText(from, 'Same words');
    const results = (await Promise.all([1, 2, 3, 4].map(() => ingest(event)))).flat();
    expect(results.filter((r) => r.outcome === 'stored')).toHaveLength(1);
    expect(new Set(results.map((r) => r.messageId)).size).toBe(1);

    const [other] = await ingest(wabaText(from, 'Same words'));
    expect(other.outcome).toBe('stored');
    expect(other.messageId).not.toBe(results[0].messageId);
    expect(other.ticketId).toBe(results[0].ticketId);
  });

  it('ignores an account no channel has, without failing the rest of the delivery', async () => {
    const unknown = { ...wabaText(newNumber(), 'Hi'), accountId: '999000999' };
    const known = wabaText(newNumber(), 'Hi');
    const results = await ingest(unknown, known);
    expect(results.map((r) => r.outcome)).toEqual(['ignored', 'stored']);
  });

  it('writes no customer event for a channel whose webhook is off', async () => {
    const [res] = await ingest(engineText(quiet.id, newNumber(), 'Psst'));
    expect(res.outcome).toBe('stored');
    expect(await outbox().countDocuments({ _id: messageEventId(res.messageId) as never })).toBe(0);
  });

  it("opens a new pending ticket when a closed ticket's contact writes again", async () => {
    const from = newNumber();
    const [first] = await ingest(engineText(engineChannel.id, from, 'First'));
    await tickets.UpdateTicket({ tenantId, ticketId: first.ticketId, status: 'closed' });
    const [second] = await ingest(engineText(engineChannel.id, from, 'Back again'));
    expect(second.ticketId).not.toBe(first.ticketId);
    expect((await tickets.GetTicket({ tenantId, ticketId: second.ticketId })).status).toBe('pending');
  });
});

describe('IngestEvents: satisfaction survey answers', () => {
  async function surveyedTicket(from: string) {
    const { ticket } = await tickets.CreateTicket({ tenantId, channelId: engineChannel.id, number: from });
    const begun = await tickets.BeginEvaluation({ tenantId, ticketId: ticket!.id, externalKey: '', force: false });
    await tickets.CompleteEvaluation({ tenantId, ticketId: ticket!.id, claimId: begun.claimId, messageId: randomUUID() });
    return ticket!;
  }

  it('records a digit 1-5 as the answer, on the surveyed ticket even once it is closed, and only the first', async () => {
    const from = newNumber();
    const ticket = await surveyedTicket(from);
    await tickets.UpdateTicket({ tenantId, ticketId: ticket.id, status: 'closed' });

    const [answer] = await ingest(engineText(engineChannel.id, from, ' 4 '));
    expect(answer).toMatchObject({ outcome: 'stored', ticketId: ticket.id });
    const after = await tickets.GetTicket({ tenantId, ticketId: ticket.id });
    expect(after.evaluation).toMatchObject({ answer: '4' });
    expect(after.status).toBe('closed');
    expect((await tickets.FindContactTickets({ tenantId, number: from, all: true })).tickets).toHaveLength(1);
    expect(JSON.parse((await outbox().findOne({ _id: messageEventId(answer.messageId) }))!.body).msg.evaluationAnswer).toBe(true);

    // Answered: a later "5" is an ordinary message, which opens a new conversation.
    const [later] = await ingest(engineText(engineChannel.id, from, '5'));
    expect(later.ticketId).not.toBe(ticket.id);
    expect((await tickets.GetTicket({ tenantId, ticketId: ticket.id })).evaluation?.answer).toBe('4');
  });

  it('takes any other reply as an ordinary message while the survey waits', async () => {
    const from = newNumber();
    const ticket = await surveyedTicket(from);
    const [reply] = await ingest(engineText(engineChannel.id, from, 'Great service, 5 stars'));
    expect(reply.ticketId).toBe(ticket.id);
    expect((await tickets.GetTicket({ tenantId, ticketId: ticket.id })).evaluation?.answer).toBe('');
    const [digit] = await ingest(engineText(engineChannel.id, from, '5'));
    expect(digit.ticketId).toBe(ticket.id);
    expect((await tickets.GetTicket({ tenantId, ticketId: ticket.id })).evaluation?.answer).toBe('5');
  });
});

describe('IngestEvents: delivery statuses', () => {
  async function sentMessage() {
    const { ticket } = await tickets.CreateTicket({ tenantId, channelId: engineChannel.id, number: newNumber() });
    const res = await messaging.SendByTicket({ tenantId, ticketId: ticket!.id, body: 'Your order shipped' });
    return services.settled(tenantId, res.messageId);
  }
  const status = (providerMessageId: string, value: string, error = ''): InboundEvent => ({
    kind: 'status',
    channelId: engineChannel.id,
    channelType: 'engine_a',
    providerMessageId,
    status: value,
    error,
  });

  it('moves a sent message forward only, each change one message.status event', async () => {
    const msg = await sentMessage();
    expect(msg.status).toBe('sent');
    const pid = msg.providerMessageId;
    const outcomes = async (...values: string[]) => (await ingest(...values.map((v) => status(pid, v)))).map((r) => r.outcome);
    expect(await outcomes('delivered', 'read', 'delivered', 'read')).toEqual([
      'status_applied',
      'status_applied',
      'duplicate',
      'duplicate',
    ]);
    expect((await messaging.GetMessage({ tenantId, messageId: msg.messageId })).status).toBe('read');

    // The dispatcher's own change (sent) is an event only when an integration of the channel has a
    // urlMessageStatus (none here); providers' changes always are.
    const events = await outbox()
      .find({ _id: { $in: ['sent', 'delivered', 'read', 'failed'].map((s) => statusEventId(msg.messageId, s)) } as never })
      .toArray();
    expect(events.map((e) => JSON.parse(e.body).msg.status).sort()).toEqual(['delivered', 'read']);
    for (const e of events) {
      expect(e).toMatchObject({ method: 'message.status', target: 'integrations', urlField: 'urlMessageStatus' });
      expect(JSON.parse(e.body)).toMatchObject({
        method: 'message.status',
        msg: { messageId: msg.messageId, ticketId: msg.ticketId, providerMessageId: pid },
        ticket: { id: msg.ticketId },
      });
    }
  });

  it("stores the pricing a status carries with that status's change, shown by reads and in the message.status event", async () => {
    const msg = await sentMessage();
    expect((await messaging.GetMessage({ tenantId, messageId: msg.messageId })).pricing).toBeNull();
    const pricing = { billable: true, pricingModel: 'PMP', category: 'marketing' };
    const [delivered] = await ingest({ ...status(msg.providerMessageId, 'delivered'), pricing });
    expect(delivered.outcome).toBe('status_applied');
    expect(await messaging.GetMessage({ tenantId, messageId: msg.messageId })).toMatchObject({ status: 'delivered', pricing });
    const [event] = await outbox()
      .find({ _id: statusEventId(msg.messageId, 'delivered') as never })
      .toArray();
    expect(JSON.parse(event.body).msg.pricing).toEqual(pricing);

    // A later status without pricing keeps what was stored.
    await ingest(status(msg.providerMessageId, 'read'));
    expect(await messaging.GetMessage({ tenantId, messageId: msg.messageId })).toMatchObject({ status: 'read', pricing });
  });

  it('ignores a status the message has passed without having had it', async () => {
    const msg = await sentMessage();
    expect((await ingest(status(msg.providerMessageId, 'read'), status(msg.providerMessageId, 'delivered'))).map((r) => r.outcome)).toEqual(
      ['status_applied', 'ignored'],
    );
    expect((await messaging.GetMessage({ tenantId, messageId: msg.messageId })).status).toBe('read');
    expect(await outbox().countDocuments({ _id: statusEventId(msg.messageId, 'delivered') as never })).toBe(0);
  });

  it('records a failure with its reason, and answers an unknown message as such', async () => {
    const msg = await sentMessage();
    const [failed] = await ingest(status(msg.providerMessageId, 'failed', '(#131047) Re-engagement message'));
    expect(failed.outcome).toBe('status_applied');
    expect(await messaging.GetMessage({ tenantId, messageId: msg.messageId })).toMatchObject({
      status: 'failed',
      error: '(#131047) Re-engagement message',
    });
    expect(await ingest(status(msg.providerMessageId, 'read'))).toEqual([
      { outcome: 'ignored', messageId: msg.messageId, ticketId: msg.ticketId },
    ]);
    expect(await ingest(status('NOT-OURS', 'delivered'))).toEqual([{ outcome: 'status_unknown_message', messageId: '', ticketId: 0 }]);
  });
});

describe('IngestEvents: engine connection', () => {
  it("sets the channel's status and writes one service.status event per change", async () => {
    const { whatsapp } = await tenants.CreateSession({
      tenant: tenantId,
      name: 'Conn',
      type: 'engine_a',
      engineUrl: engine.url,
      engineToken: 't3',
    });
    const conn = (connection: string): InboundEvent => ({
      kind: 'connection',
      channelId: whatsapp!.id,
      channelType: 'engine_a',
      connection,
    });
    expect(await ingest(conn('CONNECTED'), conn('CONNECTED'))).toEqual([
      { outcome: 'connection_applied', messageId: '', ticketId: 0 },
      { outcome: 'duplicate', messageId: '', ticketId: 0 },
    ]);
    expect((await tenants.GetChannel({ tenantId, channelId: whatsapp!.id })).status).toBe('CONNECTED');
    expect((await ingest(conn('DISCONNECTED'), conn('CONNECTED'))).map((r) => r.outcome)).toEqual([
      'connection_applied',
      'connection_applied',
    ]);
    expect((await tenants.GetChannel({ tenantId, channelId: whatsapp!.id })).status).toBe('CONNECTED');

    const events = await outbox()
      .find({ method: 'service.status', body: { $regex: `"whatsappId":${whatsapp!.id},` } })
      .toArray();
    expect(events.map((e) => JSON.parse(e.body).status).sort()).toEqual(['CONNECTED', 'CONNECTED', 'DISCONNECTED']);
    expect(new Set(events.map((e) => e._id)).size).toBe(3);
    expect(events[0]).toMatchObject({ target: 'integrations', urlField: 'urlServiceStatus' });
  });
});

describe("IngestEvents: the waba contact's 24-hour window", () => {
  const at = (ms: number) => ({ timestampMs: ms });

  it("records the message's time (never later than now) as the contact's last_inbound_at on its ticket; engine channels record none", async () => {
    const from = newNumber();
    const written = Date.now() - 60_000;
    const [stored] = await ingest({ ...wabaText(from, 'Hi'), ...at(written) });
    const ticket = await tickets.GetTicket({ tenantId, ticketId: stored.ticketId });
    expect(ticket.contact!.lastInboundAt).toBe(new Date(written).toISOString());
    // A clock ahead of ours is capped at now.
    const [ahead] = await ingest({ ...wabaText(from, 'Again'), ...at(Date.now() + 3_600_000) });
    expect(Date.parse((await tickets.GetTicket({ tenantId, ticketId: ahead.ticketId })).contact!.lastInboundAt)).toBeLessThanOrEqual(
      Date.now(),
    );

    const [onEngine] = await ingest(engineText(engineChannel.id, newNumber(), 'Hi'));
    expect((await tickets.GetTicket({ tenantId, ticketId: onEngine.ticketId })).contact!.lastInboundAt).toBe('');
  });

  it('records a survey answer too (it is a message of the contact), on the closed surveyed ticket', async () => {
    const from = newNumber();
    const { ticket } = await tickets.CreateTicket({ tenantId, channelId: waba.id, number: from });
    const begun = await tickets.BeginEvaluation({ tenantId, ticketId: ticket!.id, externalKey: '', force: false });
    await tickets.CompleteEvaluation({ tenantId, ticketId: ticket!.id, claimId: begun.claimId, messageId: randomUUID() });
    await tickets.UpdateTicket({ tenantId, ticketId: ticket!.id, status: 'closed' });
    const written = Date.now() - 1_000;
    const [answer] = await ingest({ ...wabaText(from, '5'), ...at(written) });
    expect(answer).toMatchObject({ outcome: 'stored', ticketId: ticket!.id });
    const after = await tickets.GetTicket({ tenantId, ticketId: ticket!.id });
    expect(after).toMatchObject({
      status: 'closed',
      evaluation: { answer: '5' },
      contact: { lastInboundAt: new Date(written).toISOString() },
    });
  });
});
