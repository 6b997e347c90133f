import { SUPER_ADMIN_TOKEN } from '@convo/test-support';
import { engineSession, startHarness, type Harness } from './support/harness';

// Which channel fields a caller may set, decided here (the service that owns channels) from the
// caller the gateway names in x-convo-caller, on the real subgraph.

let h: Harness;

beforeAll(async () => {
  h = await startHarness('tenants-channel-fields-test');
});

afterAll(() => h?.stop());

interface Answer {
  data?: Record<string, unknown> | null;
  errors?: Array<{ message: string; extensions?: { code?: string; details?: Array<{ field: string }> } }>;
}

async function gql(caller: string | undefined, query: string, variables: Record<string, unknown>): Promise<Answer> {
  const res = await fetch(`http://127.0.0.1:${h.svc.graphqlPort}/graphql`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${SUPER_ADMIN_TOKEN}`,
      ...(caller && { 'x-convo-caller': caller }),
    },
    body: JSON.stringify({ query, variables }),
  });
  return (await res.json()) as Answer;
}

const UPDATE =
  'mutation($t: Int!, $id: Int!, $c: ChannelChanges!) { updateChannel(tenantId: $t, channelId: $id, changes: $c) { id name } }';
const CREATE = 'mutation($t: Int!, $c: NewChannel!) { createChannel(tenantId: $t, channel: $c) { channel { id } } }';

async function tenantWithChannel() {
  const tenant = await h.newTenant();
  const { whatsapp } = await h.client.CreateSession(engineSession(tenant.id));
  return { tenantId: tenant.id, channelId: whatsapp!.id };
}

describe('channel fields by caller', () => {
  it("refuses a tenant administrator (and an unnamed caller) the operator's fields, naming them, and writes nothing", async () => {
    const { tenantId, channelId } = await tenantWithChannel();
    for (const caller of [`tenant:${tenantId}`, undefined, 'tenant:abc', 'root']) {
      const res = await gql(caller, UPDATE, {
        t: tenantId,
        id: channelId,
        c: { name: 'renamed', engineUrl: 'http://127.0.0.1:1', engineToken: 't', status: 'CONNECTED' },
      });
      expect(res.errors?.[0]?.extensions?.code).toBe('ERR_FORBIDDEN');
      expect(res.errors?.[0]?.extensions?.details?.map((d) => d.field)).toEqual(['engineUrl', 'engineToken', 'status']);
      const created = await gql(caller, CREATE, {
        t: tenantId,
        c: { name: 'second', type: 'engine_a', engineUrl: 'http://169.254.169.254/' },
      });
      expect(created.errors?.[0]?.extensions?.code).toBe('ERR_FORBIDDEN');
    }
    const channel = await h.client.GetChannel({ tenantId, channelId });
    expect(channel).toMatchObject({ name: 'Engine line', engineUrl: 'http://engine.local', status: 'DISCONNECTED' });
    expect(await h.count('channels', { tenantId })).toBe(1);
  });

  it("lets a tenant administrator set the tenant's fields, on its own tenant only", async () => {
    const { tenantId, channelId } = await tenantWithChannel();
    const mine = await gql(`tenant:${tenantId}`, UPDATE, { t: tenantId, id: channelId, c: { name: 'renamed', webhookEnabled: true } });
    expect(mine.data?.updateChannel).toEqual({ id: channelId, name: 'renamed' });
    const other = await gql(`tenant:${tenantId + 1000}`, UPDATE, { t: tenantId, id: channelId, c: { name: 'theirs' } });
    expect(other.errors?.[0]?.extensions?.code).toBe('ERR_FORBIDDEN');
  });

  it('lets the operator set every field', async () => {
    const { tenantId, channelId } = await tenantWithChannel();
    const res = await gql('platform', UPDATE, {
      t: tenantId,
      id: channelId,
      c: { engineUrl: 'http://engine.internal:3000', status: 'CONNECTED' },
    });
    expect(res.errors).toBeUndefined();
    expect(await h.client.GetChannel({ tenantId, channelId })).toMatchObject({
      engineUrl: 'http://engine.internal:3000',
      status: 'CONNECTED',
    });
  });
});
