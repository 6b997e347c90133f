import { nextSequence } from '@convo/kit/mongo';
import { startTestMesh, type TestMesh } from '@convo/test-support';
import mongoose, { type Connection } from 'mongoose';

// Ticket and contact ids come from the kit's nextSequence. Two replicas of tickets are two
// processes, each with its own connection: on the embedded database (FerretDB, whose `$inc` is a
// read then a write) they must still never hand out the same id.
let mesh: TestMesh;
let replicas: Connection[];

beforeAll(async () => {
  mesh = await startTestMesh('id-sequence');
  replicas = await Promise.all([0, 1].map(() => mongoose.createConnection(mesh.database.uri, { dbName: 'convo_tickets_ids' }).asPromise()));
});

afterAll(async () => {
  await Promise.all(replicas?.map((c) => c.close()) ?? []);
  await mesh?.stop();
});

it('hands out every id once across two replicas taking ids at once', async () => {
  const ids = (await Promise.all(replicas.flatMap((conn) => Array.from({ length: 40 }, () => nextSequence(conn, 'ticket'))))).sort(
    (a, b) => a - b,
  );
  expect(new Set(ids).size).toBe(80);
  // And the next ones continue after them.
  const after = await nextSequence(replicas[0], 'ticket');
  expect(after).toBeGreaterThan(ids[ids.length - 1]);
});
