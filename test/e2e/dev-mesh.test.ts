import type { Mesh } from '@convo/dev-mesh';
import { checkHealth, closeHealthClients } from '@convo/kit';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeEngine, type FakeEngine } from '../support/fake-engine';
import { call, eventually, settled, UNPACED } from '../support/http';

const { NODE_FLAGS, startMesh, resetMeshData } = require('@convo/dev-mesh') as typeof import('@convo/dev-mesh');

/**
 * `npm start` behaves like a small production: its data and super-admin token outlive a stop, a
 * process that dies is reported and restarted with backoff, and reset wipes the kept data.
 */
describe('the development mesh', () => {
  let engine: FakeEngine;
  let dataDir: string;
  let mesh: Mesh | undefined;
  const crashes: string[] = [];
  const start = () =>
    startMesh({
      freePorts: true,
      dataDir,
      restartOnCrash: true,
      onLine: () => undefined,
      onCrash: (p, c) => crashes.push(`${p}:${c}`),
      env: UNPACED,
    });

  beforeAll(async () => {
    engine = await startFakeEngine();
    dataDir = mkdtempSync(join(tmpdir(), 'convo-dev-mesh-'));
  });

  afterAll(async () => {
    await mesh?.stop();
    await resetMeshData(dataDir).catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
    closeHealthClients();
    await engine?.close();
  });

  it('keeps tenants, channels, tokens and the super-admin token across a stop and a start', async () => {
    mesh = await start();
    const admin = mesh.superAdminToken;
    const tenant = await call(`${mesh.gatewayUrl}/tenantApiStoreTenant`, {
      token: admin,
      body: {
        status: 'active',
        name: 'Kept Ltda',
        maxUsers: 5,
        maxConnections: 5,
        acceptTerms: true,
        email: 'ops@kept.example',
        password: 'S3cure!pass',
        userName: 'Ops',
        profile: 'admin',
      },
    });
    expect(tenant.status).toBe(200);
    const tenantId = tenant.body.data.tenant.id;
    const session = await call(`${mesh.gatewayUrl}/tenantApiCreateSession`, {
      token: admin,
      body: { tenant: tenantId, name: 'Kept number', type: 'engine_a', engineUrl: engine.url, engineToken: 'engine-secret' },
    });
    const { apiId, authToken } = session.body.data.api;
    const before = await call(`${mesh.gatewayUrl}/v2/api/external/${apiId}/createTicket`, {
      token: authToken,
      body: { number: '5511987653333', body: 'before' },
    });
    expect(before.status).toBe(200);
    await mesh.stop();
    mesh = undefined;

    mesh = await start();
    expect(mesh.superAdminToken).toBe(admin);
    const shown = await call(`${mesh.gatewayUrl}/tenantApiShowTenant`, { token: admin, body: { id: tenantId } });
    expect(shown.body.data).toMatchObject({ id: tenantId, name: 'Kept Ltda' });
    const root = `${mesh.gatewayUrl}/v2/api/external/${apiId}`;
    const after = await call(`${root}/sendMessageByTicket`, {
      token: authToken,
      body: { ticketId: before.body.data.ticketId, body: 'after a restart' },
    });
    expect(after.status).toBe(200);
    expect(await settled(root, authToken, after.body.data.messageId)).toMatchObject({ status: 'sent' });
    expect(engine.requests.some((r) => JSON.stringify(r.body).includes('after a restart'))).toBe(true);
  });

  it("runs every node process with the Deployments' node flags", () => {
    const nodes = [...mesh!.processes].filter(([, child]) => child.spawnfile === process.execPath && child.exitCode === null);
    // The five services, the gateway, the relay, the dispatcher and the tenants reconciler at least.
    expect(nodes.length).toBeGreaterThanOrEqual(9);
    for (const [name, child] of nodes) {
      const argv = readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').split('\0');
      expect({ name, flags: NODE_FLAGS.filter((f) => argv.includes(f)) }).toEqual({ name, flags: NODE_FLAGS });
    }
  });

  it('reports a process that dies and starts it again', async () => {
    crashes.length = 0;
    await mesh!.kill('social-config');
    expect(crashes).toEqual(['social-config:null']);
    const grpc = mesh!.endpoints.get('social-config')!.grpc!;
    await eventually('social-config serving again', async () => (await checkHealth(grpc, 500)) === 'SERVING', 30_000);
    expect(mesh!.processes.get('social-config')!.exitCode).toBeNull();
  });

  it('wipes the kept database and token on reset', async () => {
    await mesh!.stop();
    mesh = undefined;
    expect(existsSync(join(dataDir, 'super-admin-token'))).toBe(true);
    await resetMeshData(dataDir);
    expect(existsSync(join(dataDir, 'super-admin-token'))).toBe(false);
    expect(existsSync(join(dataDir, 'db', 'dev-db.json'))).toBe(false);
  });
});
