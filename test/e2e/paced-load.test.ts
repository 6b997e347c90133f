// The bench's steady-rate load (bench/paced.ts) against real servers on loopback: requests spread
// over the run rather than sent in bursts, and a stall counted for every request it delayed, not
// only for those that were on the wire when it began.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { pacedLoad, quantile } from '../bench/paced';

async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => handler(req, res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/send` };
}

const close = (server: Server) => new Promise((resolve) => server.close(resolve));

describe('pacedLoad', () => {
  it("spreads the requests over the run instead of sending each second's share at once", async () => {
    const arrivals: number[] = [];
    const { server, url } = await serve((_req, res) => {
      arrivals.push(performance.now());
      res.end('{}');
    });
    try {
      const r = await pacedLoad(url, { 'content-type': 'application/json' }, ['{}'], { rate: 100, durationS: 1, connections: 16 });
      expect(r).toMatchObject({ requests: 100, failures: 0 });
      // Paced, about 10 arrive in any 100 ms (more only after this process stalled: those that fell
      // due meanwhile go at once); autocannon's overallRate sends all 100 within the first few
      // milliseconds of the second.
      const start = arrivals[0];
      const busiest = Math.max(...arrivals.map((a) => arrivals.filter((b) => b >= a && b < a + 100).length));
      expect(busiest).toBeLessThan(75);
      expect(arrivals[arrivals.length - 1] - start).toBeGreaterThan(800);
    } finally {
      await close(server);
    }
  });

  it('times each request from when it was due, so a stall counts for every request it held back', async () => {
    // The server answers nothing for its first 300 ms, then everything at once; the load has two
    // connections, so most requests due during the stall wait in the client, not on the wire.
    const held: ServerResponse[] = [];
    let stalling = true;
    const { server, url } = await serve((_req, res) => (stalling ? held.push(res) : res.end('{}')));
    const release = setTimeout(() => {
      stalling = false;
      for (const res of held.splice(0)) res.end('{}');
    }, 300);
    try {
      const r = await pacedLoad(url, {}, ['{}'], { rate: 100, durationS: 1, connections: 2 });
      expect(r.failures).toBe(0);
      expect(r.max).toBeGreaterThanOrEqual(250);
      // The ~20 requests due in the first 200 ms all waited 100 ms or more. Timed from when they
      // were written instead, only the two on the wire would show the stall: p90 would be a few ms.
      expect(r.p90).toBeGreaterThanOrEqual(50);
    } finally {
      clearTimeout(release);
      await close(server);
    }
  });

  it('takes percentiles by the nearest rank', () => {
    const values = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(quantile(values, 0.5)).toBe(50);
    expect(quantile(values, 0.99)).toBe(99);
    expect(quantile(values, 1)).toBe(100);
    expect(quantile([7], 0.99)).toBe(7);
    expect(quantile([], 0.5)).toBeNaN();
  });
});
