// The customer's webhook endpoint of the inbound bench, in a process of its own: records when each
// webhook arrived (wall-clock ms), its webhook-id and the provider message id it reports, and
// answers 200. Started by inbound.ts over IPC; prints its URL on stdout and answers `drain` (the
// arrivals since the last drain) messages.
import { createServer } from 'node:http';
import { performance } from 'node:perf_hooks';

/** [path, webhook-id, provider message id, received at (ms since the epoch)] */
export type Arrival = [string, string, string, number];

const arrivals: Arrival[] = [];
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const receivedAt = performance.timeOrigin + performance.now();
    let providerMessageId = '';
    try {
      providerMessageId = String(JSON.parse(Buffer.concat(chunks).toString('utf8'))?.msg?.providerMessageId ?? '');
    } catch {
      // recorded without one: counted as unexpected
    }
    arrivals.push([req.url ?? '', String(req.headers['webhook-id'] ?? ''), providerMessageId, receivedAt]);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
});
// Connections stay open between deliveries, as a customer's server behind a load balancer keeps them.
server.keepAliveTimeout = 65_000;

process.on('message', (ask: { id: number; drain: true }) => {
  process.send!({ id: ask.id, arrivals: arrivals.splice(0) });
});
process.on('disconnect', () => server.close(() => process.exit(0)));
server.listen(0, '127.0.0.1', () => {
  console.log(JSON.stringify({ url: `http://127.0.0.1:${(server.address() as { port: number }).port}` }));
});
