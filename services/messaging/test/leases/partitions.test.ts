import { startTestMesh, type TestMesh } from '@convo/test-support';
import mongoose, { type Connection } from 'mongoose';
import { PartitionLeases } from '../../src/leases/partitions';

// Partition leases on the embedded database, several workers in one process (each its own owner).

let mesh: TestMesh;
let conn: Connection;
let prefix = 0;

beforeAll(async () => {
  mesh = await startTestMesh('leases-test');
  conn = await mongoose.createConnection(mesh.database.uri, { dbName: 'leases_test' }).asPromise();
});
afterAll(async () => {
  await conn?.close();
  await mesh?.stop();
});

const pool = async (leaseMs = 60_000) => {
  const name = `L${++prefix}`;
  const worker = async (owner: string) => {
    const leases = new PartitionLeases(conn, name, { partitions: 8, leaseMs, owner });
    await leases.init();
    return leases;
  };
  return worker;
};
const overlap = (a: number[], b: number[]) => a.filter((p) => b.includes(p));

describe('PartitionLeases', () => {
  it('gives every partition to a lone worker, then shares them with a second one, never to both', async () => {
    const worker = await pool();
    const a = await worker('a');
    await a.maintain();
    expect(a.heldPartitions).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);

    const b = await worker('b');
    await b.maintain(); // b is counted; a still holds everything, so b takes nothing yet
    expect(b.heldPartitions).toEqual([]);
    await a.maintain(); // a's share is now 4: it gives the rest back
    await b.maintain();
    expect(a.heldPartitions).toHaveLength(4);
    expect(b.heldPartitions).toHaveLength(4);
    expect(overlap(a.heldPartitions, b.heldPartitions)).toEqual([]);
  });

  it('keeps a partition with work in flight when it gives partitions back', async () => {
    const worker = await pool();
    const a = await worker('a');
    await a.maintain();
    await (await worker('b')).maintain();
    await a.maintain((p) => p < 6); // partitions 0..5 are busy: only 6 and 7 may go
    expect(a.heldPartitions).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it("takes a dead worker's partitions once its leases run out, not before", async () => {
    const worker = await pool(600);
    const a = await worker('a');
    await a.maintain();
    const b = await worker('b');
    await b.maintain();
    expect(b.heldPartitions).toEqual([]);
    // a stops renewing (killed). Until its leases run out nobody may start its work.
    await new Promise((resolve) => setTimeout(resolve, 700));
    await b.maintain();
    expect(b.heldPartitions).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });

  it('lets a worker restarted under the same id take its own leases back at once', async () => {
    const worker = await pool();
    const first = await worker('dispatcher-1');
    await first.maintain();
    const again = await worker('dispatcher-1');
    await again.maintain();
    expect(again.heldPartitions).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });

  it('renews a lease once a third of it is used, not every round, and keeps it held meanwhile', async () => {
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    const worker = await pool(6_000);
    const a = await worker('a');
    await a.maintain();
    // A second later the leases have over two thirds left: the round writes nothing, so they still
    // end where the claim put them (work of 5.2 s may no longer start)...
    await sleep(1_000);
    await a.maintain();
    expect(a.heldPartitions).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(a.mayStart(0, 5_200)).toBe(false);
    // ...and once a third is used, the round renews them for a whole lease from now.
    await sleep(1_500);
    await a.maintain();
    expect(a.heldPartitions).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(a.mayStart(0, 5_200)).toBe(true);
  });

  it('allows work to start only while the lease outlives it', async () => {
    const worker = await pool(1_000);
    const a = await worker('a');
    await a.maintain();
    expect(a.mayStart(0, 500)).toBe(true);
    expect(a.mayStart(0, 5_000)).toBe(false);
    expect(a.mayStart(0, 500, Date.now() + 900)).toBe(false);
  });

  it('gives everything back on a graceful stop, so another worker continues at once', async () => {
    const worker = await pool();
    const a = await worker('a');
    await a.maintain();
    await a.releaseAll();
    const b = await worker('b');
    await b.maintain();
    expect(b.heldPartitions).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });
});
