import { DomainError, toGrpcError, unauthenticated } from '@convo/kit';
import { buildGateway, type Gateway } from '../src/app';
import { readGatewayConfig } from '../src/config';
import { SessionSigner } from '../src/dashboard/session';

// A tenant administrator's console session is signed, so any replica verifies it alone; whether
// it still stands (tenant active, user there, same password) is asked of the tenants service
// (CheckAdminSession) and trusted SESSION_CHECK_MS. A session the tenants service has ended is
// refused on /graphql, however valid its signature.

// Static files play no part here, and @fastify/static loads an ES module jest's CommonJS runtime cannot.
jest.mock('@fastify/static', () => {
  const plugin = async () => undefined;
  return Object.assign(plugin, { default: plugin, fastifyStatic: plugin });
});

const CHECK_MS = 300;
const env = {
  SUPER_ADMIN_TOKEN: 'x'.repeat(20),
  SUBGRAPH_TOKEN: 'g'.repeat(32),
  SESSION_SECRET: 's'.repeat(32),
  SESSION_CHECK_MS: String(CHECK_MS),
};

/** The tenants service's answer to CheckAdminSession, as its handler sends a domain error. */
type Verdict = 'stands' | 'ended' | 'inactive';
const refusal = (error: DomainError) => {
  const s = toGrpcError(error);
  return Object.assign(new Error(s.details), { code: s.code, details: s.details, metadata: s.metadata });
};

describe('console sessions on /graphql', () => {
  let gw: Gateway;
  let verdict: Verdict;
  const asked: unknown[] = [];
  const signer = new SessionSigner(env.SESSION_SECRET, 900);
  beforeAll(async () => {
    gw = await buildGateway(readGatewayConfig(env), { logger: false });
    gw.clients.tenants.CheckAdminSession = (async (req: unknown) => {
      asked.push(req);
      if (verdict === 'ended') throw refusal(unauthenticated('Session ended: sign in again'));
      if (verdict === 'inactive') throw refusal(new DomainError('forbidden', 'ERR_TENANT_INACTIVE', 'Tenant 7 is inactive'));
      return {};
    }) as unknown as typeof gw.clients.tenants.CheckAdminSession;
    await gw.app.ready();
  });
  beforeEach(() => {
    asked.length = 0;
  });
  afterAll(async () => {
    gw.auth.close();
    // A gateway built outside main.ts takes long to close (its process exits instead): bounded here.
    await Promise.race([gw.app.close(), new Promise((r) => setTimeout(r, 1_000).unref())]);
  });

  /** `{ __typename }` needs no subgraph: it answers once the caller is let in. */
  const ask = async (token: string) => {
    const res = await gw.app.inject({
      method: 'POST',
      url: '/graphql',
      headers: { authorization: `Bearer ${token}` },
      payload: { query: '{ __typename }' },
    });
    return { status: res.statusCode, error: res.json().error as string | undefined };
  };
  const pastTheCheck = () => new Promise((r) => setTimeout(r, CHECK_MS + 50));

  it('lets a session in while the tenants service says it stands, asking with its ids and credentials version', async () => {
    verdict = 'stands';
    const { token } = signer.sign(7, 21, 'v-one');
    expect(await ask(token)).toEqual({ status: 200, error: undefined });
    expect(asked).toEqual([{ tenantId: 7, userId: 21, credentialsVersion: 'v-one' }]);
  });

  it('refuses a session the tenants service has ended (401) once the last verdict is older than SESSION_CHECK_MS', async () => {
    verdict = 'stands';
    const { token } = signer.sign(7, 22, 'v-two');
    expect((await ask(token)).status).toBe(200);
    // The password changed, or the user was removed: the signature is still valid.
    verdict = 'ended';
    await pastTheCheck();
    expect(await ask(token)).toEqual({ status: 401, error: 'ERR_UNAUTHORIZED' });
    // The refusal is remembered as a pass is: within SESSION_CHECK_MS it is not asked again.
    expect(await ask(token)).toEqual({ status: 401, error: 'ERR_UNAUTHORIZED' });
    expect(asked).toHaveLength(2);
  });

  it('refuses a session of a tenant set inactive (403 ERR_TENANT_INACTIVE), and a session it never saw at once', async () => {
    verdict = 'inactive';
    expect(await ask(signer.sign(8, 31, 'v-three').token)).toEqual({ status: 403, error: 'ERR_TENANT_INACTIVE' });
    verdict = 'ended';
    expect(await ask(signer.sign(8, 32, 'v-four').token)).toEqual({ status: 401, error: 'ERR_UNAUTHORIZED' });
    expect(asked).toHaveLength(2);
  });
});
