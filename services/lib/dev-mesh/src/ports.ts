import { createServer } from 'node:net';

// Ports handed out by this process, so that two processes of one mesh never get the same one.
const issuedPorts = new Set<number>();

/**
 * A port to give a child process, free when probed. It is drawn below the kernel's ephemeral range
 * (32768–60999 on Linux): a port the kernel picked for `listen(0)` and that was closed again may be
 * taken by any outgoing connection (to the database, between services) before the child binds it,
 * which failed starts with EADDRINUSE on a busy machine. Ports below that range are never given to
 * outgoing connections.
 */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (issuedPorts.has(port)) continue;
    const free = await new Promise<boolean>((resolve) => {
      const srv = createServer();
      srv.once('error', () => resolve(false));
      srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
    });
    if (free) {
      issuedPorts.add(port);
      return port;
    }
  }
  throw new Error('no free port between 20000 and 32000');
}
