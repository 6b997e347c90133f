import { createServer, type Server } from 'node:http';

/**
 * The HTTP face of a worker process (relay, dispatcher): `check(path)` answers true (200), false
 * (503) or undefined (404) for /healthz and /readyz.
 */
export function listenHealth(port: number, check: (path: string) => boolean | undefined): Promise<Server> {
  const server = createServer((req, res) => {
    const ok = check((req.url ?? '').split('?')[0]);
    if (ok === undefined) return res.writeHead(404).end();
    res.writeHead(ok ? 200 : 503, { 'content-type': 'application/json' }).end(JSON.stringify({ status: ok ? 'ok' : 'unavailable' }));
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '0.0.0.0', () => resolve(server));
  });
}
