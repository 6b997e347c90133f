import { commandsDuring, SUPER_ADMIN_TOKEN } from '@convo/test-support';
import { engineSession, startHarness, type Harness } from './support/harness';

let h: Harness;

beforeAll(async () => {
  h = await startHarness('tenants-channel-references-test');
});

afterAll(async () => {
  await h?.stop();
});

/** `find` commands this service sent to its `channels` collection while `run` ran. */
async function channelReads(run: () => Promise<unknown>): Promise<number> {
  return (await commandsDuring(h.svc.db, run)).filter((c) => c === 'find channels').length;
}

type Representation = { __typename: 'Channel'; id: number; tenantId: number };

/** What the gateway sends for a page of tickets: one `_entities` call with every ticket's channel. */
async function entities(representations: Representation[]): Promise<Array<{ id: number; name: string } | null>> {
  const res = await fetch(`http://127.0.0.1:${h.svc.graphqlPort}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${SUPER_ADMIN_TOKEN}` },
    body: JSON.stringify({
      query: 'query($r: [_Any!]!) { _entities(representations: $r) { ... on Channel { id name } } }',
      variables: { r: representations },
    }),
  });
  const body = (await res.json()) as { data: { _entities: Array<{ id: number; name: string } | null> }; errors?: unknown };
  expect(body.errors).toBeUndefined();
  return body.data._entities;
}

describe('Channel references (a page of tickets naming their channels)', () => {
  let tenantA: number;
  let tenantB: number;
  let a1: number;
  let a2: number;
  let b1: number;
  const page = (size: number): Representation[] =>
    Array.from({ length: size }, (_, i) => ({ __typename: 'Channel', id: i % 3 ? a1 : a2, tenantId: tenantA }));

  beforeAll(async () => {
    tenantA = (await h.newTenant()).id;
    tenantB = (await h.newTenant()).id;
    a1 = (await h.client.CreateSession(engineSession(tenantA, { name: 'A one' }))).whatsapp!.id;
    a2 = (await h.client.CreateSession(engineSession(tenantA, { name: 'A two' }))).whatsapp!.id;
    b1 = (await h.client.CreateSession(engineSession(tenantB, { name: 'B one' }))).whatsapp!.id;
  });

  it('reads each distinct channel once per request, whatever the page size', async () => {
    let answered: Awaited<ReturnType<typeof entities>> = [];
    const small = await channelReads(async () => {
      answered = await entities(page(5));
    });
    expect(answered.map((c) => c?.name)).toEqual(['A two', 'A one', 'A one', 'A two', 'A one']);
    const large = await channelReads(async () => {
      answered = await entities(page(50));
    });
    expect(answered).toHaveLength(50);
    expect(answered.every((c) => c !== null)).toBe(true);
    expect({ small, large }).toEqual({ small: 2, large: 2 });
  });

  it('keeps nothing between requests: a second request reads again', async () => {
    const reads = await channelReads(async () => {
      await entities(page(4));
      await entities(page(4));
    });
    expect(reads).toBe(4);
  });

  it("answers a channel named with another tenant as absent, in the same batch as the tenant's own", async () => {
    const answered = await entities([
      { __typename: 'Channel', id: b1, tenantId: tenantA },
      { __typename: 'Channel', id: a1, tenantId: tenantA },
      { __typename: 'Channel', id: b1, tenantId: tenantB },
    ]);
    expect(answered).toEqual([null, { id: a1, name: 'A one' }, { id: b1, name: 'B one' }]);
  });

  it('answers an unknown channel as absent', async () => {
    expect(await entities([{ __typename: 'Channel', id: 2_000_000_000, tenantId: tenantA }])).toEqual([null]);
  });
});
