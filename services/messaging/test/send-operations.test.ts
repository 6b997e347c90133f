import * as grpc from '@grpc/grpc-js';
import type { ServiceClient } from '@convo/kit';
import { errCode, rpcError, startFakeProvider, type FakeProvider, type ProviderReply, type ProviderRequest } from '@convo/test-support';
import type { Connection } from 'mongoose';
import { SEND_KEY_WINDOW_MS } from '../src/domain/send.service';
import { startMessagingWithPeers, tenantWithEngine, type MessagingWithPeers } from './support/peers';

// The real tickets, tenants, channel-engines and messaging services on one FerretDB (each has its
// own database), and a fake engine_a server standing in for WhatsApp.

// The engine answers like Baileys: its key.id tells the test which messageId it was given.
const acceptWithKey = (req: ProviderRequest): ProviderReply => ({
  status: 200,
  body: { key: { id: `WA-${req.body.options?.messageId}` } },
});

// ---- setup ---------------------------------------------------------------------------------

let services: MessagingWithPeers;
let engine: FakeProvider;
let messagingDb: Connection;
let tickets: ServiceClient<'tickets'>;
let messaging: ServiceClient<'messaging'>;
let tenantId: number;
let channelId: number;

beforeAll(async () => {
  [services, engine] = await Promise.all([
    startMessagingWithPeers('messaging-test', {
      PROVIDER_TIMEOUT_MS: '3000',
      DELIVERY_BACKOFF_BASE_MS: '50',
      DELIVERY_BACKOFF_MAX_MS: '100',
    }),
    startFakeProvider(acceptWithKey),
  ]);
  messagingDb = services.messaging.db;
  tickets = services.tickets.client;
  messaging = services.messaging.client;
  ({ tenantId, channelId } = await tenantWithEngine(services.tenants.client, engine.url));
});

afterAll(async () => {
  await services?.stop();
  await engine?.close();
});

beforeEach(() => engine.reset());

let lastNumber = 0;
const newTicket = async (status?: 'closed') => {
  const number = `55119${String(20_000_000 + ++lastNumber)}`;
  const { ticket } = await tickets.CreateTicket({ tenantId, channelId, number });
  if (status) await tickets.UpdateTicket({ tenantId, ticketId: ticket!.id, status });
  return ticket!;
};
const send = (ticketId: number, over: Record<string, unknown> = {}) =>
  messaging.SendByTicket({ tenantId, ticketId, body: 'Hello!', ...over });
const statusOf = async (ticketId: number) => (await tickets.GetTicket({ tenantId, ticketId })).status;
const messagesOf = (ticketId: number) => messagingDb.collection('messages').find({ ticketId }).toArray();

// ---- SendByTicket --------------------------------------------------------------------------

describe('SendByTicket', () => {
  it('answers once the message is queued, then the dispatcher delivers it once and records it as sent', async () => {
    const ticket = await newTicket();
    const res = await send(ticket.id);

    expect(res).toMatchObject({ ticketId: ticket.id, status: 'queued', idempotent: false, skipped: false });
    await expect(services.settled(tenantId, res.messageId)).resolves.toMatchObject({
      ticketId: ticket.id,
      channelId,
      direction: 'out',
      body: 'Hello!',
      status: 'sent',
      providerMessageId: `WA-${res.messageId}`,
    });
    expect(engine.requests.map((r) => ({ authorization: r.headers.authorization, body: r.body }))).toEqual([
      {
        authorization: 'Bearer eng-tok',
        body: { jid: `${ticket.contact!.number}@s.whatsapp.net`, content: { text: 'Hello!' }, options: { messageId: res.messageId } },
      },
    ]);
    // A text message stores only the fields it has (no media, interactive, e-mail or error fields):
    // each one would cost the embedded database a decode on every read and update.
    const [stored] = await messagesOf(ticket.id);
    expect(Object.keys(stored).sort()).toEqual(
      ['_id', 'body', 'channelId', 'createdAt', 'direction', 'providerMessageId', 'status', 'tenantId', 'ticketId', 'to', 'updatedAt']
        .concat(stored.traceparent === undefined ? [] : ['traceparent'])
        .sort(),
    );
    // Reads answer the missing fields as empty.
    expect(await messaging.GetMessage({ tenantId, messageId: res.messageId })).toMatchObject({
      error: '',
      mediaUrl: '',
      mimeType: '',
      fileName: '',
      subject: '',
    });
  });

  it('answers without waiting for a slow provider', async () => {
    const ticket = await newTicket();
    engine.answer(() => 'hang');
    const res = await send(ticket.id);
    expect(res.status).toBe('queued');

    // The provider holds the dispatcher's request; the message stays queued, then the timed-out
    // attempt is retried and goes through.
    while (!engine.requests.length) await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await messaging.GetMessage({ tenantId, messageId: res.messageId })).status).toBe('queued');
    engine.answer(acceptWithKey);
    await expect(services.settled(tenantId, res.messageId)).resolves.toMatchObject({ status: 'sent' });
  });

  it('refuses a closed ticket without reopen, sending nothing', async () => {
    const ticket = await newTicket('closed');
    const err = await rpcError(send(ticket.id));

    expect(err.code).toBe(grpc.status.ABORTED);
    expect(errCode(err)).toBe('ERR_TICKET_CLOSED');
    expect(await messagesOf(ticket.id)).toEqual([]);
    expect(await statusOf(ticket.id)).toBe('closed');
    expect(engine.requests).toEqual([]);
  });

  it('reopens a closed ticket with reopen and sends', async () => {
    const ticket = await newTicket('closed');
    const res = await send(ticket.id, { reopen: true });

    expect(res.status).toBe('queued');
    expect(await statusOf(ticket.id)).toBe('open');
    await services.settled(tenantId, res.messageId);
    expect(engine.requests).toHaveLength(1);
  });

  it('closes the ticket with isClosed, and the queued message is still delivered', async () => {
    const ticket = await newTicket();
    const res = await send(ticket.id, { isClosed: true });

    const after = await tickets.GetTicket({ tenantId, ticketId: ticket.id });
    expect(after.status).toBe('closed');
    expect(after.closedAt).not.toBe('');
    await expect(services.settled(tenantId, res.messageId)).resolves.toMatchObject({ status: 'sent' });
    expect(engine.requests).toHaveLength(1);
  });

  it('skips a repeated externalKey and delivers only once', async () => {
    const ticket = await newTicket();
    const first = await send(ticket.id, { externalKey: 'order-7-shipped' });
    const again = await send(ticket.id, { externalKey: 'order-7-shipped', body: 'Hello again' });

    expect(first).toMatchObject({ idempotent: false, skipped: false, status: 'queued' });
    expect(again).toMatchObject({ idempotent: true, skipped: true, ticketId: ticket.id });
    await services.settled(tenantId, first.messageId);
    expect(engine.requests).toHaveLength(1);
    expect(await messagesOf(ticket.id)).toHaveLength(1);
  });

  it('sends the same externalKey again as a new message once its 120 s window has passed', async () => {
    const ticket = await newTicket();
    const first = await send(ticket.id, { externalKey: 'window-1' });
    await services.settled(tenantId, first.messageId);
    // The claim made `ms` ago: what the code compares with its clock (Date.now) when the key comes again.
    const claimedAgo = (ms: number) =>
      messagingDb
        .collection('send_keys')
        .updateOne({ _id: `${tenantId}:window-1` as never }, { $set: { createdAt: new Date(Date.now() - ms) } });

    await claimedAgo(SEND_KEY_WINDOW_MS - 5_000);
    expect(await send(ticket.id, { externalKey: 'window-1', body: 'Too soon' })).toMatchObject({ skipped: true, idempotent: true });

    await claimedAgo(SEND_KEY_WINDOW_MS + 1_000);
    const after = await send(ticket.id, { externalKey: 'window-1', body: 'After the window' });
    expect(after).toMatchObject({ skipped: false, idempotent: false, status: 'queued' });
    expect(after.messageId).not.toBe(first.messageId);
    await expect(services.settled(tenantId, after.messageId)).resolves.toMatchObject({ status: 'sent', body: 'After the window' });
    expect(engine.requests.map((r) => r.body.content?.text)).toEqual(['Hello!', 'After the window']);
    // The key is the new send's now: its own window starts again.
    expect(await send(ticket.id, { externalKey: 'window-1' })).toMatchObject({ skipped: true, idempotent: true });
    expect(await messagesOf(ticket.id)).toHaveLength(2);
  });

  it('delivers exactly once for 50 concurrent sends with one externalKey', async () => {
    const ticket = await newTicket();
    // Each answer: accepted, skipped (the key's message is stored), or ERR_SEND_IN_PROGRESS (the
    // first send had not stored it yet): retried, those are skipped too.
    const attempt = () => send(ticket.id, { externalKey: 'burst-1' }).catch((err: unknown) => String(errCode(err as grpc.ServiceError)));
    const answers = await Promise.all(Array.from({ length: 50 }, attempt));
    expect(answers.every((a) => typeof a === 'object' || a === 'ERR_SEND_IN_PROGRESS')).toBe(true);
    const retried = await Promise.all(answers.map((a) => (typeof a === 'object' ? a : attempt())));

    const accepted = retried.filter((a) => typeof a === 'object' && !a.skipped) as Array<{ messageId: string }>;
    expect(accepted).toHaveLength(1);
    expect(retried.filter((a) => typeof a === 'object' && a.skipped && a.idempotent)).toHaveLength(49);
    await services.settled(tenantId, accepted[0].messageId);
    expect(engine.requests).toHaveLength(1);
    expect(await messagesOf(ticket.id)).toHaveLength(1);
  });

  it('takes over the key of a send that died before storing its message, once its deadline passed', async () => {
    const ticket = await newTicket();
    const keys = messagingDb.collection('send_keys');
    // What a messaging process killed between the claim and the insert leaves behind.
    const dangling = (key: string, acceptBy: Date) =>
      keys.insertOne({
        _id: `${tenantId}:${key}` as never,
        ticketId: ticket.id,
        messageId: 'never-stored',
        createdAt: new Date(),
        acceptBy,
      });

    await dangling('died-1', new Date(Date.now() - 1_000));
    const taken = await send(ticket.id, { externalKey: 'died-1' });
    expect(taken).toMatchObject({ skipped: false, status: 'queued' });
    await services.settled(tenantId, taken.messageId);
    expect(await send(ticket.id, { externalKey: 'died-1' })).toMatchObject({ skipped: true, idempotent: true });

    await dangling('still-running', new Date(Date.now() + 60_000));
    expect(errCode(await rpcError(send(ticket.id, { externalKey: 'still-running' })))).toBe('ERR_SEND_IN_PROGRESS');
  });

  it("paces a channel: sends at least the channel's sendIntervalMs apart", async () => {
    const paced = await services.tenants.client.CreateSession({
      tenant: tenantId,
      name: 'Paced',
      type: 'engine_a',
      engineUrl: engine.url,
      engineToken: 'eng-tok',
      sendIntervalMs: 1_000,
    });
    const { ticket } = await tickets.CreateTicket({
      tenantId,
      channelId: paced.whatsapp!.id,
      number: `55119${String(40_000_000 + ++lastNumber)}`,
    });
    const ids: string[] = [];
    for (let i = 1; i <= 3; i++) ids.push((await send(ticket!.id, { body: `paced ${i}` })).messageId);
    for (const id of ids) await services.settled(tenantId, id);

    const times = engine.requests.map((r) => r.receivedAt);
    expect(times).toHaveLength(3);
    // The dispatcher starts each send no sooner than 1 s after the previous one started. Arrival
    // times also carry each request's own way over loopback, which on a loaded machine differed by
    // up to 53 ms between two requests (a 300 ms interval once arrived 247 ms apart): the margin is
    // a fifth of the interval, and a dispatcher that did not pace would send them milliseconds apart.
    for (let i = 1; i < times.length; i++) expect(times[i] - times[i - 1]).toBeGreaterThanOrEqual(800);
  });

  it("delivers a ticket's messages in acceptance order", async () => {
    const ticket = await newTicket();
    const ids: string[] = [];
    for (let i = 1; i <= 6; i++) ids.push((await send(ticket.id, { body: `part ${i}` })).messageId);

    for (const id of ids) await services.settled(tenantId, id);
    expect(engine.requests.map((r) => r.body.content.text)).toEqual(['part 1', 'part 2', 'part 3', 'part 4', 'part 5', 'part 6']);
  });

  it('frees the key of a send refused on a closed ticket, so a retry with reopen goes through', async () => {
    const ticket = await newTicket('closed');
    const err = await rpcError(send(ticket.id, { externalKey: 'retry-me' }));
    expect(errCode(err)).toBe('ERR_TICKET_CLOSED');

    const retry = await send(ticket.id, { externalKey: 'retry-me', reopen: true });
    expect(retry).toMatchObject({ skipped: false, status: 'queued' });
    expect(await statusOf(ticket.id)).toBe('open');
    await services.settled(tenantId, retry.messageId);
    expect(engine.requests).toHaveLength(1);
  });

  it('retries a provider 5xx with backoff and delivers once it recovers', async () => {
    const ticket = await newTicket();
    let calls = 0;
    engine.answer((req) => (++calls < 3 ? { status: 503, body: { message: 'engine restarting' } } : acceptWithKey(req)));
    const res = await send(ticket.id);

    expect(res.status).toBe('queued');
    const message = await services.settled(tenantId, res.messageId);
    expect(message).toMatchObject({ status: 'sent', providerMessageId: `WA-${res.messageId}` });
    expect(engine.requests).toHaveLength(3);
    const [doc] = await messagesOf(ticket.id);
    expect(doc.attempts).toBe(2);
  });

  it("fails a message at once on a refusal a retry cannot fix, with the provider's reason", async () => {
    const ticket = await newTicket();
    engine.answer(() => ({ status: 400, body: { message: 'invalid jid' } }));
    const res = await send(ticket.id);

    expect(res.status).toBe('queued');
    const message = await services.settled(tenantId, res.messageId);
    expect(message).toMatchObject({ status: 'failed', providerMessageId: '' });
    expect(message.error).toContain('invalid jid');
    expect(engine.requests).toHaveLength(1);
  });

  it('answers NOT_FOUND for a ticket of another tenant, storing nothing', async () => {
    const ticket = await newTicket();
    const err = await rpcError(messaging.SendByTicket({ tenantId: tenantId + 1000, ticketId: ticket.id, body: 'Hi' }));

    expect(err.code).toBe(grpc.status.NOT_FOUND);
    expect(errCode(err)).toBe('ERR_TICKET_NOT_FOUND');
    expect(await messagesOf(ticket.id)).toEqual([]);
  });
});

// ---- sends by number: the same SendByTicket, with the contact's current ticket ------------------

describe('SendByTicket by number', () => {
  const newNumber = () => `55119${String(40_000_000 + ++lastNumber)}`;
  const sendTo = (number: string, over: Record<string, unknown> = {}) =>
    messaging.SendByTicket({ tenantId, ticketId: 0, number, channelId, body: 'Hello!', ...over });
  const ticketsOfNumber = async (number: string) => (await tickets.FindContactTickets({ tenantId, number, all: true })).tickets;

  it('opens a pending ticket for a new contact on the channel, queues the message, and later sends reuse that ticket', async () => {
    const number = newNumber();
    const first = await sendTo(`+${number}`);
    expect(first).toMatchObject({ status: 'queued', idempotent: false, skipped: false });
    const [ticket] = await ticketsOfNumber(number);
    expect(ticket).toMatchObject({ id: first.ticketId, channelId, status: 'pending', contact: { number } });
    await expect(services.settled(tenantId, first.messageId)).resolves.toMatchObject({ ticketId: first.ticketId, status: 'sent' });
    expect(engine.requests.filter((r) => r.body.jid === `${number}@s.whatsapp.net`).map((r) => r.body)).toEqual([
      { jid: `${number}@s.whatsapp.net`, content: { text: 'Hello!' }, options: { messageId: first.messageId } },
    ]);

    const second = await sendTo(number, { body: 'Again' });
    expect(second.ticketId).toBe(first.ticketId);
    expect(await ticketsOfNumber(number)).toHaveLength(1);
    await services.settled(tenantId, second.messageId);
  });

  it("goes to the contact's open ticket, and closes it with isClosed; the next send opens a new one", async () => {
    const ticket = await newTicket();
    const number = ticket.contact!.number;
    const res = await sendTo(number, { isClosed: true });
    expect(res.ticketId).toBe(ticket.id);
    expect(await statusOf(ticket.id)).toBe('closed');

    const next = await sendTo(number);
    expect(next.ticketId).not.toBe(ticket.id);
    expect(await statusOf(next.ticketId)).toBe('pending');
    await Promise.all([services.settled(tenantId, res.messageId), services.settled(tenantId, next.messageId)]);
  });

  it('skips a repeated externalKey with the ticket of the first send, opening and queuing nothing more', async () => {
    const number = newNumber();
    const first = await sendTo(number, { externalKey: 'by-number-1', isClosed: true });
    const again = await sendTo(number, { externalKey: 'by-number-1' });
    expect(again).toMatchObject({ idempotent: true, skipped: true, ticketId: first.ticketId });
    expect(await ticketsOfNumber(number)).toHaveLength(1);
    expect(await messagesOf(first.ticketId)).toHaveLength(1);
    await services.settled(tenantId, first.messageId);
  });

  it('refuses a file from a private address before opening anything', async () => {
    const number = newNumber();
    const err = await rpcError(
      sendTo(number, { body: '', media: { url: 'http://127.0.0.1:9/cat.png', mimeType: '', fileName: '', data: Buffer.alloc(0) } }),
    );
    expect(errCode(err)).toBe('ERR_URL_BLOCKED');
    expect(await ticketsOfNumber(number)).toEqual([]);
    expect(await services.tickets.db.collection('contacts').countDocuments({ tenantId, number })).toBe(0);
  });

  it('sends an audio marked voice as a voice note, and refuses a voice note that is no audio', async () => {
    const number = newNumber();
    const mp3 = Buffer.from('SUQzBAAAAAAAI1RTU0UAAAAPAAADTGF2ZjU4Ljc2LjEwMAAAAAAAAAAAAAAA', 'base64');
    const res = await sendTo(number, { body: '', media: { data: mp3, mimeType: 'audio/mpeg', fileName: 'note', voice: true } });
    await services.settled(tenantId, res.messageId);
    const sent = engine.requests.find((r) => r.body.options?.messageId === res.messageId);
    expect(sent!.body.content).toMatchObject({ audio: { url: expect.stringContaining('/media/') }, mimetype: 'audio/mpeg', ptt: true });

    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
    const other = newNumber();
    const err = await rpcError(sendTo(other, { body: '', media: { data: png, mimeType: 'image/png', fileName: 'dot', voice: true } }));
    expect(errCode(err)).toBe('ERR_UNSUPPORTED_MEDIA_TYPE');
    expect(await ticketsOfNumber(other)).toEqual([]);
  });

  it("refuses another tenant's channel (NOT_FOUND) and a channel reached by ticket only (ERR_CHANNEL_MISMATCH), opening nothing", async () => {
    const number = newNumber();
    const foreign = await rpcError(messaging.SendByTicket({ tenantId: tenantId + 1000, ticketId: 0, number, channelId, body: 'Hi' }));
    expect([foreign.code, errCode(foreign)]).toEqual([grpc.status.NOT_FOUND, 'ERR_CHANNEL_NOT_FOUND']);

    const webchat = (await services.tenants.client.CreateSession({ tenant: tenantId, name: 'Site chat', type: 'webchat' })).whatsapp!.id;
    const mismatch = await rpcError(messaging.SendByTicket({ tenantId, ticketId: 0, number, channelId: webchat, body: 'Hi' }));
    expect(errCode(mismatch)).toBe('ERR_CHANNEL_MISMATCH');
    expect(await ticketsOfNumber(number)).toEqual([]);

    const noNumber = await rpcError(messaging.SendByTicket({ tenantId, ticketId: 0, number: '', channelId, body: 'Hi' }));
    expect(noNumber.code).toBe(grpc.status.INVALID_ARGUMENT);
  });
});

describe('SendPresence', () => {
  it("shows typing to the ticket's contact through the engine at once, queuing nothing", async () => {
    const ticket = await newTicket();
    await expect(messaging.SendPresence({ tenantId, ticketId: ticket.id, state: 'typing' })).resolves.toEqual({
      ticketId: ticket.id,
      state: 'typing',
      applied: true,
    });
    expect(engine.requests.filter((r) => r.url === '/presence').map((r) => r.body)).toEqual([
      { jid: `${ticket.contact!.number}@s.whatsapp.net`, presence: 'composing' },
    ]);
    expect(await messagesOf(ticket.id)).toEqual([]);
  });

  it("answers NOT_FOUND for another tenant's ticket and ERR_PROVIDER_FAILED when the engine refuses", async () => {
    const ticket = await newTicket();
    const foreign = await rpcError(messaging.SendPresence({ tenantId: tenantId + 1000, ticketId: ticket.id, state: 'typing' }));
    expect(errCode(foreign)).toBe('ERR_TICKET_NOT_FOUND');
    engine.answer(() => ({ status: 500, body: { message: 'session closed' } }));
    const failed = await rpcError(messaging.SendPresence({ tenantId, ticketId: ticket.id, state: 'paused' }));
    expect(errCode(failed)).toBe('ERR_PROVIDER_FAILED');
    engine.answer(acceptWithKey);
  });
});

// ---- OpenTicket and SendEvaluation: one call each, both halves or neither ---------------------

describe('OpenTicket', () => {
  const open = (over: Record<string, unknown> = {}, body = 'Welcome!') =>
    messaging.OpenTicket({ ticket: { tenantId, channelId, number: `55119${String(30_000_000 + ++lastNumber)}`, ...over }, body });

  it('creates the ticket and queues its first message, which the dispatcher delivers', async () => {
    const res = await open();
    expect(res).toMatchObject({ created: true, ticket: { status: 'open', channelId } });
    await expect(services.settled(tenantId, res.messageId)).resolves.toMatchObject({
      ticketId: res.ticket!.id,
      body: 'Welcome!',
      status: 'sent',
    });
    expect(engine.requests).toHaveLength(1);
  });

  it('answers the first ticket for a repeated externalKey and queues nothing', async () => {
    const number = `55119${String(30_000_000 + ++lastNumber)}`;
    const first = await open({ number, externalKey: 'crm-42' });
    const again = await open({ number, externalKey: 'crm-42' });
    expect(again).toMatchObject({ created: false, messageId: '', ticket: { id: first.ticket!.id } });
    expect(await messagesOf(first.ticket!.id)).toHaveLength(1);
  });

  it('discards the new ticket when its first message cannot be queued, freeing its externalKey', async () => {
    const number = `55119${String(30_000_000 + ++lastNumber)}`;
    // A channel tenants does not know: the ticket is written, then the message is refused.
    const err = await rpcError(open({ number, channelId: 999_999, externalKey: 'crm-43' }));
    expect(errCode(err)).toBe('ERR_CHANNEL_NOT_FOUND');
    expect((await tickets.FindContactTickets({ tenantId, number, all: true })).tickets).toEqual([]);

    const retry = await open({ number, externalKey: 'crm-43' });
    expect(retry.created).toBe(true);
  });

  it('refuses an empty first message before writing anything', async () => {
    const number = `55119${String(30_000_000 + ++lastNumber)}`;
    const err = await rpcError(open({ number }, ' '));
    expect(err.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect((await tickets.FindContactTickets({ tenantId, number, all: true })).tickets).toEqual([]);
  });
});

describe('SendEvaluation', () => {
  it('queues the survey and records it on the ticket; a repeated externalKey queues nothing', async () => {
    const ticket = await newTicket();
    const first = await messaging.SendEvaluation({ tenantId, ticketId: ticket.id, externalKey: 'nps-1' });
    expect(first).toMatchObject({ skipped: false, ticket: { id: ticket.id, evaluation: { messageId: first.messageId } } });
    await expect(services.settled(tenantId, first.messageId)).resolves.toMatchObject({ status: 'sent' });

    const again = await messaging.SendEvaluation({ tenantId, ticketId: ticket.id, externalKey: 'nps-1', force: true });
    expect(again).toMatchObject({ skipped: true, messageId: '' });
    expect(await messagesOf(ticket.id)).toHaveLength(1);
  });

  it('refuses a closed ticket, queuing nothing and leaving the survey unsent', async () => {
    const ticket = await newTicket('closed');
    const err = await rpcError(messaging.SendEvaluation({ tenantId, ticketId: ticket.id }));
    expect(errCode(err)).toBe('ERR_TICKET_CLOSED');
    expect(await messagesOf(ticket.id)).toEqual([]);
    expect((await tickets.GetTicket({ tenantId, ticketId: ticket.id })).evaluation?.sentAt ?? '').toBe('');
  });
});
