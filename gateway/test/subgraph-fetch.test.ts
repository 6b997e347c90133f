import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { subgraphTarget } from '../src/subgraph-fetch';

/** Replicas of a subgraph as real HTTP servers, each answering its own name. */
const servers: Server[] = [];
async function replica(name: string): Promise<string> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.setHeader('content-type', 'application/json').end(JSON.stringify({ data: { replica: name } })));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
}
/** A port nobody listens on: its connection is refused. */
async function closedUrl(): Promise<string> {
  const url = await replica('closed');
  const server = servers.pop()!;
  await new Promise((resolve) => server.close(resolve));
  return url;
}

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

const ask = async (target: ReturnType<typeof subgraphTarget>) => {
  const res = await target.fetcher(target.url, {
    method: 'POST',
    body: '{"query":"{ x }"}',
    headers: { 'content-type': 'application/json' },
  });
  return ((await res.json()) as { data: { replica: string } }).data.replica;
};

describe('a subgraph reached by URL', () => {
  it('is one URL, or a list of replicas taken in turn', async () => {
    const [a, b] = await Promise.all([replica('A'), replica('B')]);
    expect(await Promise.all([0, 1, 2].map(() => ask(subgraphTarget(a, 1_000))))).toEqual(['A', 'A', 'A']);
    const both = subgraphTarget(`${a}, ${b}`, 1_000);
    expect(both.url).toBe(a);
    const answers = [];
    for (let i = 0; i < 6; i++) answers.push(await ask(both));
    expect(answers).toEqual(['A', 'B', 'A', 'B', 'A', 'B']);
  });

  it('goes on to the next replica when one refuses the connection, and fails when all do', async () => {
    const down = await closedUrl();
    const up = await replica('up');
    const target = subgraphTarget(`${down},${up}`, 1_000);
    for (let i = 0; i < 4; i++) expect(await ask(target)).toBe('up');
    await expect(ask(subgraphTarget(`${down},${await closedUrl()}`, 1_000))).rejects.toThrow('fetch failed');
  });

  it("does not send a request again after its connection was made (a timeout is the caller's error)", async () => {
    let calls = 0;
    const slow = createServer(() => void calls++);
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    servers.push(slow);
    const other = await replica('other');
    const target = subgraphTarget(`http://127.0.0.1:${(slow.address() as AddressInfo).port}/graphql,${other}`, 200);
    await expect(ask(target)).rejects.toThrow();
    expect(calls).toBe(1);
    slow.closeAllConnections();
  });
});
