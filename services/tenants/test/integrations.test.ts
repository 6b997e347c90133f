import * as grpc from '@grpc/grpc-js';
import { createClient, type proto } from '@convo/kit';
import { errCode, errFields, rpcError } from '@convo/test-support';
import { createHash, randomBytes } from 'node:crypto';
import { DEFAULT_FEED_OPTIONS } from '../src/domain/revocations';
import { readTenantsConfig, tenantsService } from '../src/spec';
import { engineSession, startHarness, tenantRequest, type Harness } from './support/harness';

let h: Harness;

beforeAll(async () => {
  h = await startHarness('tenants-integrations-test');
});

afterAll(async () => {
  await h?.stop();
});

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const callerToken = () => randomBytes(24).toString('hex');

/** A tenant with its admin user and one channel. */
async function setup() {
  const { tenant, adminUser } = await h.client.StoreTenant(tenantRequest());
  const session = await h.client.CreateSession(engineSession(tenant!.id));
  return { tenant: tenant!.id, userId: adminUser!.id, sessionId: session.whatsapp!.id, session };
}

const apiRequest = (s: { tenant: number; userId: number; sessionId: number }, over: Record<string, unknown> = {}) => ({
  name: 'CRM',
  tenant: s.tenant,
  userId: s.userId,
  sessionId: s.sessionId,
  authToken: callerToken(),
  urlServiceStatus: 'https://crm.example/status',
  urlMessageStatus: '',
  ...over,
});

async function waitFor(check: () => boolean, ms = 3_000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Opens WatchRevocations and collects what arrives. */
function watch(client: ReturnType<typeof createClient<'tenants'>>) {
  const batches: string[][] = [];
  const stream = client.WatchRevocations({});
  let error: grpc.ServiceError | undefined;
  stream.on('data', (b: proto.tenants.RevocationBatch__Output) => batches.push(b.apiIds));
  stream.on('error', (e: grpc.ServiceError) => (error = e));
  return { batches, stream, error: () => error, revoked: () => batches.flat() };
}

describe('CreateApi', () => {
  it("creates an integration with the caller's token, stores only its hash and does not echo it", async () => {
    const s = await setup();
    const req = apiRequest(s);
    const api = await h.client.CreateApi(req);

    expect(api).toMatchObject({
      name: 'CRM',
      tenant: s.tenant,
      userId: s.userId,
      sessionId: s.sessionId,
      urlServiceStatus: 'https://crm.example/status',
      authToken: '',
    });
    expect(api.apiId).toMatch(/^[0-9a-f-]{36}$/);
    const doc = await h.svc.db.collection('api_integrations').findOne({ _id: api.apiId as never });
    expect(doc!.tokenHash).toBe(sha256(req.authToken));
    expect(JSON.stringify(doc)).not.toContain(req.authToken);
    await expect(h.client.ResolveApiToken({ apiId: api.apiId, tokenSha256: sha256(req.authToken) })).resolves.toMatchObject({
      tenantId: s.tenant,
    });
  });

  it('requires a token of at least 32 characters and http(s) callback URLs', async () => {
    const s = await setup();
    const err = await rpcError(
      h.client.CreateApi(apiRequest(s, { authToken: 'a'.repeat(31), urlMessageStatus: 'javascript:alert(1)', name: '' })),
    );
    expect(err.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(errFields(err).sort()).toEqual(['authToken', 'name', 'urlMessageStatus']);
  });

  it('refuses a token already in use with 409', async () => {
    const s = await setup();
    const authToken = callerToken();
    await h.client.CreateApi(apiRequest(s, { authToken }));
    const err = await rpcError(h.client.CreateApi(apiRequest(s, { authToken, name: 'Copy' })));
    expect(err.code).toBe(grpc.status.ABORTED);
    expect(errCode(err)).toBe('ERR_TOKEN_IN_USE');
  });

  it("refuses another tenant's channel or user, and an unknown tenant", async () => {
    const mine = await setup();
    const theirs = await setup();
    expect(errCode(await rpcError(h.client.CreateApi(apiRequest(mine, { sessionId: theirs.sessionId }))))).toBe('ERR_CHANNEL_NOT_FOUND');
    expect(errCode(await rpcError(h.client.CreateApi(apiRequest(mine, { userId: theirs.userId }))))).toBe('ERR_USER_NOT_FOUND');
    expect(errCode(await rpcError(h.client.CreateApi(apiRequest(mine, { tenant: 987_654 }))))).toBe('ERR_TENANT_NOT_FOUND');
  });
});

describe('DeleteApi', () => {
  it('needs apiId, tenant, sessionId and userId all to match', async () => {
    const s = await setup();
    const other = await setup();
    const req = apiRequest(s);
    const { apiId } = await h.client.CreateApi(req);
    const key = { apiId, tenant: s.tenant, sessionId: s.sessionId, userId: s.userId };

    for (const wrong of [
      { tenant: other.tenant },
      { sessionId: other.sessionId },
      { userId: other.userId },
      { apiId: '00000000-0000-4000-8000-000000000000' },
    ]) {
      const err = await rpcError(h.client.DeleteApi({ ...key, ...wrong }));
      expect(err.code).toBe(grpc.status.NOT_FOUND);
      expect(errCode(err)).toBe('ERR_API_NOT_FOUND');
    }
    await expect(h.client.ResolveApiToken({ apiId, tokenSha256: sha256(req.authToken) })).resolves.toMatchObject({ apiId });
  });

  it('deletes the integration: its token no longer resolves, and the deletion is logged', async () => {
    const s = await setup();
    const api = s.session.api!;
    await expect(h.client.DeleteApi({ apiId: api.apiId, tenant: s.tenant, sessionId: s.sessionId, userId: api.userId })).resolves.toEqual({
      apiId: api.apiId,
      deleted: true,
    });
    const err = await rpcError(h.client.ResolveApiToken({ apiId: api.apiId, tokenSha256: sha256(api.authToken) }));
    expect(err.code).toBe(grpc.status.UNAUTHENTICATED);
    expect(await h.count('api_revocations', { _id: api.apiId })).toBe(1);
    expect(
      errCode(await rpcError(h.client.DeleteApi({ apiId: api.apiId, tenant: s.tenant, sessionId: s.sessionId, userId: api.userId }))),
    ).toBe('ERR_API_NOT_FOUND');
  });
});

describe('WatchRevocations', () => {
  const remove = (s: Awaited<ReturnType<typeof setup>>, client = h.client) =>
    client.DeleteApi({ apiId: s.session.api!.apiId, tenant: s.tenant, sessionId: s.sessionId, userId: s.session.api!.userId });

  it('greets a watcher at once, then keeps sending heartbeats', async () => {
    const w = watch(h.client);
    try {
      // Deadlines only bound a failing run: a busy machine may take longer than the 1 s heartbeat.
      await waitFor(() => w.batches.length >= 1, 10_000);
      await waitFor(() => w.batches.length >= 3, 10_000);
      // The greeting lists recent revocations; heartbeats are empty.
      expect(w.batches.slice(1, 3)).toEqual([[], []]);
    } finally {
      w.stream.cancel();
    }
  });

  it("pushes this replica's deletions at once and another replica's within a poll", async () => {
    // Each path is told apart by what it needs, not by how fast it was. `quiet` reads the log once
    // at start and never polls: a deletion made through it reaches its watcher only by being pushed.
    // A deletion made through `other` reaches h.svc's watcher only by h.svc's poll.
    const quiet = await h.mesh.start({
      ...tenantsService,
      config: (env) => ({ ...readTenantsConfig(env), revocationFeed: { ...DEFAULT_FEED_OPTIONS, pollMs: 3_600_000 } }),
    });
    const other = await h.replica();
    const otherClient = createClient('tenants', `127.0.0.1:${other.grpcPort}`);
    const pushed = watch(quiet.client);
    const polled = watch(h.client);
    try {
      await waitFor(() => pushed.batches.length >= 1 && polled.batches.length >= 1, 10_000);
      const local = await setup();
      await remove(local, quiet.client);
      await waitFor(() => pushed.revoked().includes(local.session.api!.apiId), 10_000);

      const remote = await setup();
      await remove(remote, otherClient);
      await waitFor(() => polled.revoked().includes(remote.session.api!.apiId), 10_000);
    } finally {
      pushed.stream.cancel();
      polled.stream.cancel();
    }
  });

  it("announces an edited channel (the gateways' cached engine tokens), after the edit is stored, once per edit", async () => {
    const other = await h.replica();
    // As the gateway asks: its own token check needs the channel's engine token.
    const otherClient = createClient('tenants', `127.0.0.1:${other.grpcPort}`, { caller: 'gateway' });
    const here = watch(h.client);
    const there = watch(otherClient);
    try {
      await waitFor(() => here.batches.length >= 1 && there.batches.length >= 1, 10_000);
      const s = await setup();
      const entries = (w: ReturnType<typeof watch>) => w.revoked().filter((e) => e.startsWith(`channel:${s.sessionId}:`));
      await h.client.UpdateChannel({ id: s.sessionId, engineToken: 'rotated-engine-token-1', rotateWebhookSecret: false });
      await h.client.UpdateChannel({ id: s.sessionId, engineToken: 'rotated-engine-token-2', rotateWebhookSecret: false });
      // Pushed to this replica's watcher, read from the log by the other's: two edits, two entries.
      await waitFor(() => entries(here).length === 2 && entries(there).length === 2, 10_000);
      expect(await h.count('api_revocations', { _id: { $in: entries(here) } })).toBe(2);
      // A gateway that reads the channel on hearing of an edit reads the edit.
      expect((await otherClient.GetChannel({ tenantId: 0, channelId: s.sessionId })).engineToken).toBe('rotated-engine-token-2');
    } finally {
      here.stream.cancel();
      there.stream.cancel();
    }
  });

  it('tells a new watcher about recent revocations in its first message', async () => {
    const s = await setup();
    await remove(s);
    const w = watch(h.client);
    try {
      await waitFor(() => w.batches.length >= 1);
      expect(w.batches[0]).toContain(s.session.api!.apiId);
    } finally {
      w.stream.cancel();
    }
  });

  it('ends open streams with UNAVAILABLE when the replica stops, without waiting out the grace period', async () => {
    // A grace far longer than any stop takes, however busy the machine: finishing in half of it
    // means the open stream did not hold the shutdown (the test's timeout leaves room to tell).
    const GRACE_MS = 60_000;
    const replica = await h.replica({ SHUTDOWN_GRACE_MS: String(GRACE_MS) });
    const w = watch(createClient('tenants', `127.0.0.1:${replica.grpcPort}`));
    await waitFor(() => w.batches.length >= 1, 10_000);
    const started = Date.now();
    await replica.stop();
    expect(Date.now() - started).toBeLessThan(GRACE_MS / 2);
    await waitFor(() => w.error() !== undefined, 10_000);
    expect(w.error()!.code).toBe(grpc.status.UNAVAILABLE);
  }, 120_000);
});
