import * as grpc from '@grpc/grpc-js';
import { EventEmitter } from 'node:events';
import { Authenticator } from '../src/auth';
import type { Clients } from '../src/clients';

/** A WatchRevocations stream the test drives by hand. */
class FakeStream extends EventEmitter {
  cancelled = false;
  cancel() {
    this.cancelled = true;
    this.emit('error', Object.assign(new Error('Cancelled'), { code: grpc.status.CANCELLED }));
  }
}

const principal = { apiId: 'api-1', tenantId: 1, sessionId: 1, userId: 1 };
const channel = { id: 7, tenantId: 1, type: 'engine_a', engineToken: 'engine-token-1' };
/** How tenants announces an edited channel (IntegrationsService.channelChanged). */
const channelEdited = (id: number) => ({ apiIds: [`channel:${id}:${Date.now()}:0a1b2c3d`] });
const WATCH = { staleMs: 200, firstRetryMs: 20, maxRetryMs: 40 };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function setup() {
  const streams: FakeStream[] = [];
  let answer: () => Promise<typeof principal> = async () => principal;
  let channelAnswer: () => Promise<typeof channel> = async () => channel;
  const tenants = {
    ResolveApiToken: jest.fn(() => answer()),
    GetChannel: jest.fn((_req: { tenantId: number; channelId: number }) => channelAnswer()),
    WatchRevocations: jest.fn(() => {
      const s = new FakeStream();
      streams.push(s);
      return s;
    }),
  };
  const auth = new Authenticator({ tenants } as unknown as Clients, 's'.repeat(24), 60_000);
  const call = async () => {
    const req = { headers: { authorization: 'Bearer integration-token' }, params: { apiId: 'api-1' } } as never;
    await auth.external(req);
  };
  return {
    auth,
    tenants,
    streams,
    call,
    latest: () => streams.at(-1)!,
    answerWith: (fn: () => Promise<typeof principal>) => (answer = fn),
    channelWith: (fn: () => Promise<typeof channel>) => (channelAnswer = fn),
  };
}

describe('Authenticator with the revocation stream', () => {
  let t: ReturnType<typeof setup>;
  beforeEach(() => {
    t = setup();
  });
  afterEach(() => t.auth.close());

  it('resolves every call until the stream is live, then caches', async () => {
    t.auth.watchRevocations(WATCH);
    await t.call();
    await t.call();
    expect(t.tenants.ResolveApiToken).toHaveBeenCalledTimes(2);

    t.latest().emit('data', { apiIds: [] });
    await t.call();
    await t.call();
    expect(t.tenants.ResolveApiToken).toHaveBeenCalledTimes(3);
  });

  it('lets the requests that miss the same token at once share one resolution', async () => {
    t.auth.watchRevocations(WATCH);
    t.latest().emit('data', { apiIds: [] });
    let release!: () => void;
    t.answerWith(() => new Promise((resolve) => (release = () => resolve(principal))));
    const calls = Array.from({ length: 16 }, () => t.call());
    release();
    await Promise.all(calls);
    expect(t.tenants.ResolveApiToken).toHaveBeenCalledTimes(1);
  });

  it('does not hand a resolution under way to a request that came after a revocation', async () => {
    t.auth.watchRevocations(WATCH);
    t.latest().emit('data', { apiIds: [] });
    let release!: () => void;
    t.answerWith(() => new Promise((resolve) => (release = () => resolve(principal))));
    const before = t.call();
    t.latest().emit('data', { apiIds: ['api-1'] });
    t.answerWith(async () => {
      throw Object.assign(new Error('unknown token'), { code: grpc.status.UNAUTHENTICATED, metadata: new grpc.Metadata() });
    });
    const after = t.call();
    release();
    await before;
    await expect(after).rejects.toMatchObject({ code: grpc.status.UNAUTHENTICATED });
  });

  it('stops using the cache for a revoked integration at once', async () => {
    t.auth.watchRevocations(WATCH);
    t.latest().emit('data', { apiIds: [] });
    await t.call();
    t.latest().emit('data', { apiIds: ['api-1'] });
    t.answerWith(async () => {
      throw Object.assign(new Error('unknown token'), { code: grpc.status.UNAUTHENTICATED, metadata: new grpc.Metadata() });
    });
    await expect(t.call()).rejects.toMatchObject({ code: grpc.status.UNAUTHENTICATED });
  });

  it('does not cache a resolution that was under way when a revocation arrived', async () => {
    t.auth.watchRevocations(WATCH);
    t.latest().emit('data', { apiIds: [] });
    let release!: () => void;
    t.answerWith(() => new Promise((resolve) => (release = () => resolve(principal))));
    const inFlight = t.call();
    await sleep(5);
    t.latest().emit('data', { apiIds: ['api-1'] });
    release();
    await inFlight;
    t.answerWith(async () => principal);
    await t.call();
    expect(t.tenants.ResolveApiToken).toHaveBeenCalledTimes(2);
  });

  it('never caches an integration it has seen revoked', async () => {
    t.auth.watchRevocations(WATCH);
    t.latest().emit('data', { apiIds: ['api-1'] });
    await t.call();
    await t.call();
    expect(t.tenants.ResolveApiToken).toHaveBeenCalledTimes(2);
  });

  it('does not use the cache while the stream is down, and reopens it with backoff', async () => {
    t.auth.watchRevocations(WATCH);
    t.latest().emit('data', { apiIds: [] });
    await t.call();
    t.latest().emit('error', Object.assign(new Error('gone'), { code: grpc.status.UNAVAILABLE }));
    await t.call();
    await t.call();
    expect(t.tenants.ResolveApiToken).toHaveBeenCalledTimes(3);

    await sleep(60);
    expect(t.tenants.WatchRevocations).toHaveBeenCalledTimes(2);
    t.latest().emit('data', { apiIds: [] });
    await t.call();
    await t.call();
    expect(t.tenants.ResolveApiToken).toHaveBeenCalledTimes(4);
  });

  it('treats a silent stream as down and reopens it', async () => {
    t.auth.watchRevocations(WATCH);
    t.latest().emit('data', { apiIds: [] });
    await t.call();
    await sleep(WATCH.staleMs + 50);
    expect(t.streams[0].cancelled).toBe(true);
    await t.call();
    expect(t.tenants.ResolveApiToken).toHaveBeenCalledTimes(2);
    expect(t.tenants.WatchRevocations).toHaveBeenCalledTimes(2);
  });

  it('stops reconnecting once closed', async () => {
    t.auth.watchRevocations(WATCH);
    t.auth.close();
    expect(t.streams[0].cancelled).toBe(true);
    await sleep(80);
    expect(t.tenants.WatchRevocations).toHaveBeenCalledTimes(1);
  });
});

describe('engine channels with the revocation stream', () => {
  let t: ReturnType<typeof setup>;
  beforeEach(() => {
    t = setup();
  });
  afterEach(() => t.auth.close());
  const engineToken = async () => (await t.auth.channelById(7)).engineToken;

  it('asks tenants on every webhook until the stream is live, then caches', async () => {
    t.auth.watchRevocations(WATCH);
    await engineToken();
    await engineToken();
    expect(t.tenants.GetChannel).toHaveBeenCalledTimes(2);
    expect(t.tenants.GetChannel).toHaveBeenLastCalledWith({ tenantId: 0, channelId: 7 });

    t.latest().emit('data', { apiIds: [] });
    await engineToken();
    await engineToken();
    expect(t.tenants.GetChannel).toHaveBeenCalledTimes(3);
  });

  it('reads an edited channel again as soon as the edit is announced (a rotated engine token stops at once)', async () => {
    t.auth.watchRevocations(WATCH);
    t.latest().emit('data', { apiIds: [] });
    expect(await engineToken()).toBe('engine-token-1');
    t.channelWith(async () => ({ ...channel, engineToken: 'engine-token-2' }));
    expect(await engineToken()).toBe('engine-token-1');
    t.latest().emit('data', channelEdited(7));
    expect(await engineToken()).toBe('engine-token-2');
    expect(t.tenants.GetChannel).toHaveBeenCalledTimes(2);
  });

  it('does not cache a read that was under way when an edit was announced', async () => {
    t.auth.watchRevocations(WATCH);
    t.latest().emit('data', { apiIds: [] });
    let release!: () => void;
    t.channelWith(() => new Promise((resolve) => (release = () => resolve(channel))));
    const inFlight = engineToken();
    await sleep(5);
    t.latest().emit('data', channelEdited(7));
    release();
    await inFlight;
    t.channelWith(async () => ({ ...channel, engineToken: 'engine-token-2' }));
    expect(await engineToken()).toBe('engine-token-2');
  });

  it('never caches an unknown channel (one created a moment later is found)', async () => {
    t.auth.watchRevocations(WATCH);
    t.latest().emit('data', { apiIds: [] });
    t.channelWith(async () => {
      throw Object.assign(new Error('no such channel'), { code: grpc.status.NOT_FOUND, metadata: new grpc.Metadata() });
    });
    await expect(engineToken()).rejects.toMatchObject({ code: grpc.status.NOT_FOUND });
    t.channelWith(async () => channel);
    expect(await engineToken()).toBe('engine-token-1');
  });

  it('does not use cached channels while the stream is down', async () => {
    t.auth.watchRevocations(WATCH);
    t.latest().emit('data', { apiIds: [] });
    await engineToken();
    t.latest().emit('error', Object.assign(new Error('gone'), { code: grpc.status.UNAVAILABLE }));
    await engineToken();
    await engineToken();
    expect(t.tenants.GetChannel).toHaveBeenCalledTimes(3);
  });

  it('keeps cached integration tokens when only a channel changed, and cached channels when only an integration was revoked', async () => {
    t.auth.watchRevocations(WATCH);
    t.latest().emit('data', { apiIds: [] });
    await t.call();
    await engineToken();
    t.latest().emit('data', channelEdited(7));
    await t.call();
    expect(t.tenants.ResolveApiToken).toHaveBeenCalledTimes(1);
    await engineToken();
    expect(t.tenants.GetChannel).toHaveBeenCalledTimes(2);
    t.latest().emit('data', { apiIds: ['api-9'] });
    await engineToken();
    expect(t.tenants.GetChannel).toHaveBeenCalledTimes(2);
  });
});
