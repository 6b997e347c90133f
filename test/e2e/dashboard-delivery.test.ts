import type { Mesh } from '@convo/dev-mesh';
import { startWebhookReceiver, type WebhookReceiver } from '@convo/test-support';
import { contactWrites, gql as gqlAt, newDashboardTenant, startDeliveryMesh, type DashboardTenant } from '../support/dashboard';
import { eventually } from '../support/http';
import { startNetworkEngine, type NetworkEngine } from '../support/network-engine';

const { startMesh } = require('../support/shared-mesh') as typeof import('../support/shared-mesh');

/**
 * Delivery health and the replay of dead webhooks over GraphQL, for two tenants. The retry window
 * is 1 ms here, so a webhook the customer refuses once is dead at once.
 */
describe('dashboard delivery health, end to end', () => {
  let mesh: Mesh;
  let engine: NetworkEngine;
  let receiver: WebhookReceiver;
  const crashes: string[] = [];
  let a: DashboardTenant;
  let b: DashboardTenant;

  const gql = (token: string, query: string, variables?: Record<string, unknown>) => gqlAt(mesh, token, query, variables);
  const HEALTH = 'query($t: Int!) { deliveryHealth(tenantId: $t) { channelId queued failed webhooksPending webhooksDead } }';
  const DEAD = 'query($t: Int!) { webhookDeliveries(tenantId: $t, status: dead) { id status channelId } }';

  beforeAll(async () => {
    [engine, receiver] = await Promise.all([startNetworkEngine(), startWebhookReceiver()]);
    mesh = await startDeliveryMesh(startMesh, crashes);
    receiver.answer(() => ({ status: 500 }));
    const hook = (name: string) => ({ webhookEnabled: true, webhookUrl: `${receiver.url}/${name}`, webhookIncoming: true });
    a = await newDashboardTenant(mesh, 'Alpha', engine.url, hook('alpha'));
    b = await newDashboardTenant(mesh, 'Beta', engine.url, hook('beta'));
    // A contact writes to each channel: the engine's event becomes a `message` webhook to the customer.
    for (const t of [a, b]) {
      const res = await contactWrites(mesh, t, `5511955${String(t.id).padStart(6, '0')}`, `IN-${t.id}`, 'Oi');
      expect(res.status).toBe(200);
    }
    // Both refused once, hence dead, before any test lets the receiver accept.
    for (const t of [a, b]) {
      await eventually(`a dead webhook of ${t.id}`, async () => {
        const res = await gql(mesh.superAdminToken, DEAD, { t: t.id });
        return res.body.data?.webhookDeliveries?.length > 0;
      });
    }
  });

  afterAll(async () => {
    await mesh?.stop();
    await Promise.all([engine?.close(), receiver?.close()]);
  });

  afterEach(() => expect(crashes).toEqual([]));

  it("shows each tenant its own channels' dead webhooks, then replays one and sees it delivered", async () => {
    const dead = (await gql(a.session, DEAD, { t: a.id })).body.data.webhookDeliveries;
    expect(dead.length).toBeGreaterThan(0);
    expect(dead.every((d: { channelId: number }) => d.channelId === a.channelId)).toBe(true);
    const healthRes = await gql(a.session, HEALTH, { t: a.id });
    expect(healthRes.body.errors).toBeUndefined();
    const health = healthRes.body.data.deliveryHealth;
    expect(health).toEqual([expect.objectContaining({ channelId: a.channelId, webhooksDead: dead.length })]);

    receiver.answer(() => ({ status: 200 }));
    const replay = await gql(a.session, 'mutation($t: Int!, $id: String!) { replayWebhookDelivery(tenantId: $t, id: $id) { id status } }', {
      t: a.id,
      id: dead[0].id,
    });
    expect(replay.body.data.replayWebhookDelivery).toEqual({ id: dead[0].id, status: 'pending' });
    await eventually('the replayed webhook delivered', async () => {
      const res = await gql(a.session, 'query($t: Int!, $id: String!) { webhookDelivery(tenantId: $t, id: $id) { status } }', {
        t: a.id,
        id: dead[0].id,
      });
      return res.body.data.webhookDelivery.status === 'delivered';
    });
    expect(receiver.delivered().some((h) => h.id === dead[0].id && h.path === '/alpha')).toBe(true);
    // Typed: the payload is JSON (not a string to parse), times are DateTime.
    const typed = await gql(
      a.session,
      'query($t: Int!, $id: String!) { webhookDelivery(tenantId: $t, id: $id) { payload createdAt finishedAt method target status attemptLog { outcome } } }',
      { t: a.id, id: dead[0].id },
    );
    const delivery = typed.body.data.webhookDelivery;
    expect(delivery.payload).toEqual(expect.objectContaining({ method: 'message', msg: expect.objectContaining({ body: 'Oi' }) }));
    // Statuses and kinds are enums whose values are the REST words (a dotted method is mapped: message_status).
    expect(delivery).toMatchObject({ method: 'message', target: 'channel', status: 'delivered' });
    expect(delivery.attemptLog.at(-1).outcome).toBe('delivered');
    expect(new Date(delivery.createdAt).toISOString()).toBe(delivery.createdAt);
    const schema = await gql(a.session, '{ __type(name: "WebhookDelivery") { fields { name type { name ofType { name } } } } }');
    const typeOf = (field: string) => schema.body.data.__type.fields.find((f: { name: string }) => f.name === field).type;
    expect(typeOf('payload').ofType.name).toBe('JSON');
    expect(typeOf('createdAt').ofType.name).toBe('DateTime');
    expect(typeOf('finishedAt').name).toBe('DateTime');
    expect([typeOf('status').ofType.name, typeOf('method').ofType.name, typeOf('target').ofType.name]).toEqual([
      'WebhookDeliveryStatus',
      'WebhookMethod',
      'WebhookTarget',
    ]);
    const methods = await gql(a.session, '{ __type(name: "WebhookMethod") { enumValues { name } } }');
    expect(methods.body.data.__type.enumValues.map((v: { name: string }) => v.name)).toEqual([
      'message',
      'message_status',
      'service_status',
      'reaction',
      'edit',
      'delete',
    ]);
    const outside = await gql(a.session, `{ webhookDeliveries(tenantId: ${a.id}, status: sleeping) { id } }`);
    expect(outside.body.errors[0].extensions.code).toBe('ERR_VALIDATION');

    const again = await gql(a.session, 'mutation($t: Int!, $id: String!) { replayWebhookDelivery(tenantId: $t, id: $id) { id } }', {
      t: a.id,
      id: dead[0].id,
    });
    expect(again.body.errors[0].extensions.code).toBe('ERR_DELIVERY_NOT_DEAD');
  });

  it("cannot see or replay the other tenant's webhooks", async () => {
    const theirs = (await gql(mesh.superAdminToken, DEAD, { t: b.id })).body.data.webhookDeliveries;
    expect(theirs.length).toBeGreaterThan(0);
    expect((await gql(a.session, DEAD, { t: b.id })).body.errors[0].extensions.code).toBe('ERR_FORBIDDEN');
    expect((await gql(a.session, HEALTH, { t: b.id })).body.errors[0].extensions.code).toBe('ERR_FORBIDDEN');
    const byId = await gql(a.session, 'mutation($t: Int!, $id: String!) { replayWebhookDelivery(tenantId: $t, id: $id) { id } }', {
      t: a.id,
      id: theirs[0].id,
    });
    expect(byId.body.errors[0].extensions.code).toBe('ERR_WEBHOOK_DELIVERY_NOT_FOUND');
    const still = await gql(mesh.superAdminToken, 'query($t: Int!, $id: String!) { webhookDelivery(tenantId: $t, id: $id) { status } }', {
      t: b.id,
      id: theirs[0].id,
    });
    expect(still.body.data.webhookDelivery.status).toBe('dead');
  });
});
