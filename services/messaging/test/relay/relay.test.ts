import { createClient, createLogger, parseAllowList, type ServiceClient } from '@convo/kit';
import { connectDatabase } from '@convo/kit/mongo';
import { tenantsService } from '@convo/tenants';
import { startTestMesh, startWebhookReceiver, verifyStandardWebhook, type TestMesh, type WebhookReceiver } from '@convo/test-support';
import { randomBytes, randomUUID } from 'node:crypto';
import type { Connection } from 'mongoose';
import { eventId, outboxEvent } from '../../src/outbox/events';
import type { OutboxEventDoc, WebhookMethod } from '../../src/outbox/outbox.models';
import { OutboxRepository } from '../../src/outbox/outbox.repository';
import { Relay } from '../../src/relay/relay';
import { relayTargets } from '../../src/relay/targets';

// Relays in this process against the real tenants service (targets, secrets, 410 switch-off), the
// real database, and a customer endpoint on loopback that records what it receives.

let mesh: TestMesh;
let tenants: ServiceClient<'tenants'>;
let conn: Connection;
let outbox: OutboxRepository;
let receiver: WebhookReceiver;
let tenantId: number;
let userId: number;
const relays: Relay[] = [];
const log = createLogger('relay-test', 'silent');

const SETTINGS = {
  pollMs: 50,
  busyPollMs: 50,
  batchSize: 50,
  concurrency: 4,
  leaseMs: 20_000,
  timeoutMs: 3_000,
  connectTimeoutMs: 1_000,
  retryWindowMs: 60_000,
  backoffBaseMs: 100,
  backoffMaxMs: 400,
  retentionMs: 7 * 24 * 3600_000,
  allowPrivate: parseAllowList('127.0.0.1'),
};

/** No caching (0 ms): every attempt sees the channel as tenants has it now. */
function startRelay(over: Partial<typeof SETTINGS> = {}) {
  const relay = new Relay(outbox, relayTargets(tenants, 0, 3_000), { ...SETTINGS, relayId: `relay-${relays.length + 1}`, ...over }, log);
  relays.push(relay);
  relay.start();
  return relay;
}

beforeAll(async () => {
  [mesh, receiver] = await Promise.all([
    startTestMesh('messaging-relay-test', { WEBHOOK_ALLOWED_PRIVATE: '127.0.0.1' }),
    startWebhookReceiver(),
  ]);
  // The relay calls as messaging, to which tenants hands the channels' signing secrets.
  tenants = createClient('tenants', (await mesh.start(tenantsService)).address, { caller: 'messaging' });
  conn = await connectDatabase(mesh.database.uri, 'convo_messaging');
  outbox = new OutboxRepository(conn);
  await outbox.init();
  const { tenant, adminUser } = await tenants.StoreTenant({
    status: 'active',
    name: 'Relay Co',
    maxUsers: 5,
    maxConnections: 0,
    acceptTerms: true,
    email: `owner-${randomUUID()}@relay.example`,
    password: 'secret-pass1',
    userName: 'Owner',
    profile: 'admin',
  });
  tenantId = tenant!.id;
  userId = adminUser!.id;
});

afterEach(async () => {
  await Promise.all(relays.splice(0).map((r) => r.stop(1_000)));
  receiver.answer(() => ({ status: 200 }));
});

afterAll(async () => {
  await conn?.close();
  await mesh?.stop();
  await receiver?.close();
});

/** A channel whose webhook points at the receiver under its own path. */
async function newChannel(path = `/${randomUUID()}`, webhook: { enabled?: boolean; incoming?: boolean } = {}) {
  const { whatsapp } = await tenants.CreateSession({
    tenant: tenantId,
    name: 'Hooks',
    type: 'engine_a',
    engineUrl: 'http://engine.invalid',
    engineToken: 'tok',
    webhookEnabled: webhook.enabled ?? true,
    webhookUrl: `${receiver.url}${path}`,
    webhookIncoming: webhook.incoming ?? true,
  });
  return { channel: whatsapp!, path };
}

async function addEvent(
  channelId: number,
  method: WebhookMethod = 'message',
  target: OutboxEventDoc['target'] = 'channel',
  body: unknown = { method, n: randomUUID() },
) {
  const doc = outboxEvent({
    id: eventId(`relay-test:${randomUUID()}`),
    tenantId,
    channelId,
    method,
    target,
    urlField: target === 'integrations' ? 'urlMessageStatus' : undefined,
    body,
  });
  expect(await outbox.add(doc)).toBe(true);
  return doc;
}

/** The event left `pending` and its last attempt is recorded. */
async function settled(id: string, timeoutMs = 20_000): Promise<OutboxEventDoc> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const event = await outbox.findEvent(id);
    // The relay records the event's outcome first, then finishes its attempt.
    if (event && event.status !== 'pending' && (await outbox.attemptsOf(id)).every((a) => a.finishedAt)) return event;
    if (Date.now() > until) throw new Error(`event ${id} still pending after ${timeoutMs} ms (attempts ${event?.attempts})`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const at = (path: string) => receiver.received.filter((h) => h.path === path);

describe('the webhook relay', () => {
  it('delivers with Standard Webhooks headers a receiver can verify, and records the attempt', async () => {
    const { channel, path } = await newChannel();
    const event = await addEvent(channel.id, 'message', 'channel', { method: 'message', msg: { body: 'olá 👋' }, ticket: { id: 7 } });
    const before = Math.floor(Date.now() / 1000);
    startRelay();
    expect((await settled(event._id)).status).toBe('delivered');
    const after = Math.floor(Date.now() / 1000);

    const [hook] = at(path);
    expect(hook.id).toBe(event._id);
    expect(hook.raw).toBe(event.body);
    expect(hook.headers['content-type']).toBe('application/json');
    // Stamped when it was sent: between the two readings around the delivery, however long it took.
    expect(Number(hook.timestamp)).toBeGreaterThanOrEqual(before);
    expect(Number(hook.timestamp)).toBeLessThanOrEqual(after);
    expect(hook.signature).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(verifyStandardWebhook(channel.webhookSecret, hook)).toBe(true);
    expect(verifyStandardWebhook(`whsec_${randomBytes(32).toString('base64')}`, hook)).toBe(false);
    expect(verifyStandardWebhook(channel.webhookSecret, { ...hook, raw: hook.raw.replace('olá', 'ola') })).toBe(false);

    const attempts = await outbox.attemptsOf(event._id);
    expect(attempts).toEqual([
      expect.objectContaining({
        gen: 1,
        relayId: 'relay-1',
        outcome: 'delivered',
        httpStatus: 200,
        url: `${receiver.url}${path}`,
        error: '',
      }),
    ]);
    expect(attempts[0].finishedAt).not.toBeNull();
  });

  it('signs with the new and the previous secret during a rotation', async () => {
    const { channel, path } = await newChannel();
    const { whatsapp: rotated } = await tenants.UpdateChannel({ id: channel.id, rotateWebhookSecret: true });
    expect(rotated!.webhookSecret).not.toBe(channel.webhookSecret);
    const event = await addEvent(channel.id);
    startRelay();
    await settled(event._id);
    const [hook] = at(path);
    const signatures = hook.signature.split(' ');
    expect(signatures).toHaveLength(2);
    expect(verifyStandardWebhook(rotated!.webhookSecret, { ...hook, signature: signatures[0] })).toBe(true);
    expect(verifyStandardWebhook(channel.webhookSecret, { ...hook, signature: signatures[1] })).toBe(true);
  });

  it('never delivers one event from two relays at once, and delivers every event', async () => {
    const { channel, path } = await newChannel();
    receiver.answer(async (hook) => {
      if (hook.path === path) await new Promise((r) => setTimeout(r, 20 + Math.random() * 60));
      return { status: 200 };
    });
    const events = [];
    for (let i = 0; i < 40; i++) events.push(await addEvent(channel.id));
    startRelay();
    startRelay();
    await Promise.all(events.map((e) => settled(e._id, 60_000)));

    const hooks = at(path);
    expect(receiver.overlaps).toEqual([]);
    expect(new Set(hooks.map((h) => h.id))).toEqual(new Set(events.map((e) => e._id)));
    // Each once: a second delivery only follows a lost answer or an expired lease, neither here.
    expect(hooks).toHaveLength(events.length);
    const byRelay = new Set((await Promise.all(events.map((e) => outbox.attemptsOf(e._id)))).flat().map((a) => a.relayId));
    expect(byRelay).toEqual(new Set(['relay-1', 'relay-2']));
  });

  it("switches the channel's webhook off on 410 Gone and stops retrying", async () => {
    const { channel, path } = await newChannel();
    receiver.answer((hook) => ({ status: hook.path === path ? 410 : 200 }));
    const event = await addEvent(channel.id);
    startRelay();
    const done = await settled(event._id);
    expect(done).toMatchObject({ status: 'gone', attempts: 1, lastHttpStatus: 410 });
    expect((await tenants.GetChannel({ tenantId, channelId: channel.id })).webhookEnabled).toBe(false);

    // Later events of the channel go nowhere: the webhook is off.
    const next = await addEvent(channel.id);
    expect(await settled(next._id)).toMatchObject({ status: 'canceled', lastError: 'the channel webhook is switched off' });
    expect(at(path)).toHaveLength(1);
  });

  it.each([429, 503])('waits as long as Retry-After asks on %i', async (status) => {
    const { channel, path } = await newChannel();
    receiver.answer((hook) =>
      hook.path === path && at(path).length === 1 ? { status, headers: { 'retry-after': '2' } } : { status: 200 },
    );
    const event = await addEvent(channel.id);
    startRelay();
    expect((await settled(event._id)).status).toBe('delivered');
    const attempts = await outbox.attemptsOf(event._id);
    expect(attempts.map((a) => [a.outcome, a.httpStatus])).toEqual([
      ['failed', status],
      ['delivered', 200],
    ]);
    // The relay chose the receiver's 2 s rather than a backoff, counted from when it read the answer...
    const [failed, delivered] = attempts;
    expect(failed.delayMs).toBe(2_000);
    expect(failed.nextAttemptAt!.getTime() - failed.finishedAt!.getTime()).toBe(2_000);
    // ...and nothing was posted before then: a claim is refused while nextAttemptAt is ahead of its
    // start. Both are lower bounds the code guarantees (the receiver stamped the first hook before it
    // answered, and the relay read the clock after), however slow the machine.
    expect(delivered.startedAt.getTime()).toBeGreaterThanOrEqual(failed.nextAttemptAt!.getTime());
    const [first, second] = at(path);
    expect(second.receivedAt - first.receivedAt).toBeGreaterThanOrEqual(2_000);
  });

  it('marks an event dead at once when its target is refused by the SSRF rules, posting nothing', async () => {
    const { channel, path } = await newChannel();
    const event = await addEvent(channel.id);
    // The receiver listens on loopback, which only the allow-list made reachable.
    startRelay({ allowPrivate: parseAllowList('') });
    const dead = await settled(event._id);
    expect(dead).toMatchObject({ status: 'dead', attempts: 1, lastError: expect.stringContaining('ERR_URL_BLOCKED') });
    expect(await outbox.attemptsOf(event._id)).toEqual([expect.objectContaining({ outcome: 'dead' })]);
    expect(at(path)).toHaveLength(0);
  });

  it('retries a failing receiver with exponential backoff and full jitter, then gives up after the window', async () => {
    const { channel, path } = await newChannel();
    receiver.answer((hook) => ({ status: hook.path === path ? 500 : 200 }));
    const event = await addEvent(channel.id);
    startRelay({ retryWindowMs: 2_500 });
    const dead = await settled(event._id, 30_000);
    expect(dead).toMatchObject({ status: 'dead', lastHttpStatus: 500, lastError: 'HTTP 500' });

    const attempts = await outbox.attemptsOf(event._id);
    expect(attempts.length).toBeGreaterThanOrEqual(4);
    expect(at(path)).toHaveLength(attempts.length);
    // Asserted on what the relay decided and recorded, never on how long anything took: the attempt's
    // finishedAt and nextAttemptAt come from one clock reading, the wait between them is the delay drawn.
    const sinceCreated = (d: Date | null) => d!.getTime() - dead.createdAt.getTime();
    attempts.forEach((a, i) => {
      expect(a).toMatchObject({ gen: i + 1, httpStatus: 500, error: 'HTTP 500' });
      if (i < attempts.length - 1) {
        // Retried because the window was still open when it failed; the wait before attempt n+1 is
        // uniformly random in [0, min(max, base × 2^(n−1))).
        expect(a.outcome).toBe('failed');
        expect(sinceCreated(a.finishedAt)).toBeLessThan(2_500);
        expect(a.delayMs).toBeGreaterThanOrEqual(0);
        expect(a.delayMs).toBeLessThan(Math.min(400, 100 * 2 ** i));
        expect(a.nextAttemptAt!.getTime() - a.finishedAt!.getTime()).toBe(a.delayMs);
        // Not claimed before it was due (the claim compares nextAttemptAt with its own startedAt).
        expect(attempts[i + 1].startedAt.getTime()).toBeGreaterThanOrEqual(a.nextAttemptAt!.getTime());
      }
    });
    const last = attempts[attempts.length - 1];
    expect(last).toMatchObject({ outcome: 'dead', nextAttemptAt: null, delayMs: null });
    expect(sinceCreated(last.finishedAt)).toBeGreaterThanOrEqual(2_500);
  });

  it("fans a status event out to every integration's urlMessageStatus, each with its own webhook-id", async () => {
    const { channel } = await newChannel();
    const statusPath = `/${randomUUID()}`;
    const api = await tenants.CreateApi({
      name: 'CRM',
      sessionId: channel.id,
      userId,
      tenant: tenantId,
      authToken: randomBytes(24).toString('hex'),
      urlMessageStatus: `${receiver.url}${statusPath}`,
      urlServiceStatus: '',
    });
    await tenants.CreateApi({
      name: 'No callbacks',
      sessionId: channel.id,
      userId,
      tenant: tenantId,
      authToken: randomBytes(24).toString('hex'),
      urlMessageStatus: '',
      urlServiceStatus: '',
    });
    const parent = await addEvent(channel.id, 'message.status', 'integrations', { method: 'message.status', msg: { status: 'delivered' } });
    startRelay();
    expect((await settled(parent._id)).status).toBe('fanned_out');
    await receiver.waitFor(() => at(statusPath).length === 1);
    const [hook] = at(statusPath);
    expect(hook.raw).toBe(parent.body);
    expect(hook.id).not.toBe(parent._id);
    expect(verifyStandardWebhook(channel.webhookSecret, hook)).toBe(true);
    const child = await settled(hook.id);
    expect(child).toMatchObject({ status: 'delivered', target: 'integration', apiId: api.apiId, parentId: parent._id });
  });

  it('cancels an incoming-message event when the channel no longer wants incoming messages', async () => {
    const { channel, path } = await newChannel(undefined, { incoming: false });
    const event = await addEvent(channel.id);
    startRelay();
    expect(await settled(event._id)).toMatchObject({
      status: 'canceled',
      lastError: 'incoming messages are switched off for the channel webhook',
    });
    expect(at(path)).toEqual([]);
  });

  it('releases what it holds when stopped, so another relay takes over without waiting for the lease', async () => {
    const { channel, path } = await newChannel();
    let releaseHeld!: () => void;
    const held = new Promise<void>((r) => (releaseHeld = r));
    receiver.answer(async (hook) => {
      if (hook.path === path && at(path).length === 1) await held;
      return { status: hook.path === path && at(path).length === 1 ? 500 : 200 };
    });
    const event = await addEvent(channel.id);
    // A lease far longer than this test may run: a takeover before it ran out can only be the release.
    const first = startRelay({ leaseMs: 10 * 60_000 });
    await receiver.waitFor(() => at(path).length === 1);
    await first.stop(200);
    expect((await outbox.attemptsOf(event._id)).map((a) => a.outcome)).toEqual(['released']);
    releaseHeld();

    startRelay();
    expect((await settled(event._id)).status).toBe('delivered');
    const attempts = await outbox.attemptsOf(event._id);
    expect(attempts.map((a) => [a.relayId, a.outcome])).toEqual([
      ['relay-1', 'released'],
      ['relay-2', 'delivered'],
    ]);
    // Taken over while the released attempt's lease still ran: the release, not the lease, freed it.
    expect(attempts[1].startedAt.getTime()).toBeLessThan(attempts[0].leaseUntil.getTime());
  });
});
