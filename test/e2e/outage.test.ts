import type { Mesh } from '@convo/dev-mesh';
import { call } from '../support/http';

const { startMesh } = require('@convo/dev-mesh') as typeof import('@convo/dev-mesh');

/**
 * One service down must not take the API down: the gateway stays ready, the other services' routes
 * answer, and the routes of the one that is down answer 503 ERR_UNAVAILABLE with Retry-After at
 * once. "At once" without a wall-clock bound (a loaded machine breaks those): the gateway's gRPC
 * deadline and connect budget are both 60 s here, so a 503 (not a 504 a minute later) can only be
 * the immediate answer of a refused connection.
 */
describe('one service down', () => {
  let mesh: Mesh;
  let admin: string;
  let root: string;
  let token: string;

  beforeAll(async () => {
    mesh = await startMesh({
      freePorts: true,
      onLine: () => undefined,
      onCrash: () => undefined,
      env: { RPC_DEADLINE_MS: '60000', GRPC_CONNECT_TIMEOUT_MS: '60000' },
    });
    admin = mesh.superAdminToken;
    const tenant = await call(`${mesh.gatewayUrl}/tenantApiStoreTenant`, {
      token: admin,
      body: {
        status: 'active',
        name: 'Outage Co',
        maxUsers: 2,
        maxConnections: 2,
        acceptTerms: true,
        email: 'outage@example.com',
        password: 'Out4ge!pass',
        userName: 'O',
        profile: 'admin',
      },
    });
    if (tenant.status !== 200) throw new Error(JSON.stringify(tenant.body));
    const session = await call(`${mesh.gatewayUrl}/tenantApiCreateSession`, {
      token: admin,
      body: { tenant: tenant.body.data.tenant.id, name: 'wa', type: 'engine_a', engineUrl: 'http://127.0.0.1:9' },
    });
    ({ authToken: token } = session.body.data.api);
    root = `${mesh.gatewayUrl}/v2/api/external/${session.body.data.api.apiId}`;
  });

  afterAll(() => mesh?.stop());

  it('keeps the gateway ready and answers the stopped service 503 with Retry-After at once', async () => {
    // The gateway is connected to tickets before it goes away.
    expect((await call(`${root}/listTickets`, { token })).status).toBe(200);

    const tickets = mesh.processes.get('tickets')!;
    const exited = new Promise((resolve) => tickets.once('exit', resolve));
    tickets.kill('SIGKILL');
    await exited;

    const ready = await call(`${mesh.gatewayUrl}/readyz`);
    expect(ready.status).toBe(200);

    // Another service's route (tenants) still answers.
    const tenants = await call(`${mesh.gatewayUrl}/tenantApiListTenants`, { token: admin });
    expect(tenants.status).toBe(200);

    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${root}/listTickets`, { headers: { authorization: `Bearer ${token}` } });
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('5');
      expect(await res.json()).toMatchObject({ success: false, error: 'ERR_UNAVAILABLE' });
    }
  });
});
