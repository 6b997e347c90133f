import type { ServiceClient } from '@convo/kit';
import { startTestMesh, type TestMesh } from '@convo/test-support';
import { ticketsService } from '../src/spec';

// Two tickets replicas on one embedded database (FerretDB), as MESH_REPLICAS=2 runs them: tickets
// created through both at once, for a tenant that has none yet, all succeed with distinct ids
// (the id sequence and the tenant's first listing counters are written by both at the same moment).
let mesh: TestMesh;
let replicas: Array<ServiceClient<'tickets'>>;

beforeAll(async () => {
  mesh = await startTestMesh('tickets-replicas');
  replicas = (await Promise.all([mesh.start(ticketsService), mesh.start(ticketsService)])).map((s) => s.client);
});

afterAll(() => mesh?.stop());

it('creates tickets through two replicas at once, each with its own id', async () => {
  const created = await Promise.all(
    Array.from({ length: 24 }, (_, i) =>
      replicas[i % 2].CreateTicket({ tenantId: 77, channelId: 1, number: `5521990${String(100_000 + i)}` }),
    ),
  );
  const ids = created.map((c) => c.ticket!.id);
  expect(new Set(ids).size).toBe(24);
  // Each is there to read through either replica.
  const read = await Promise.all(ids.map((ticketId, i) => replicas[(i + 1) % 2].GetTicket({ tenantId: 77, ticketId })));
  expect(read.map((t) => t.id)).toEqual(ids);
});
