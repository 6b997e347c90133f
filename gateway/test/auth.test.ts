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
const WATCH = { staleMs: 200, firstRetryMs: 20, maxRetryMs: 40 };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function setup() {
  const streams: FakeStream[] = [];
  let answer: () => Promise<typeof principal> = async () => principal;
  const tenants = {
    ResolveApiToken: jest.fn(() => answer()),
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
