import { connect, createServer, type Server } from 'node:net';

const HOST = '127.0.0.1';

// Ports this process handed out: the OS may offer a just-released port again before the child
// that was given it has bound it.
const issued = new Set<number>();

/** `count` distinct ports that were free a moment ago. */
export async function freePorts(count: number): Promise<number[]> {
  // Hold every probe open until all are read, so the OS cannot hand out the same port twice.
  const servers: Server[] = [];
  try {
    const ports: number[] = [];
    while (ports.length < count) {
      const server = await listenOnAnyPort();
      servers.push(server);
      const port = (server.address() as { port: number }).port;
      if (issued.has(port)) continue;
      issued.add(port);
      ports.push(port);
    }
    return ports;
  } finally {
    await Promise.all(servers.map(closeServer));
  }
}

/** Lets a port be handed out again once its server is gone. */
export function releasePorts(ports: number[]): void {
  for (const port of ports) issued.delete(port);
}

/**
 * A listening probe on a port below the kernel's ephemeral range (32768–60999 on Linux): a port
 * from that range, once the probe closes, may be taken by any outgoing connection before FerretDB
 * binds it; ports below it are never given to outgoing connections.
 */
async function listenOnAnyPort(): Promise<Server> {
  for (let attempt = 0; ; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    try {
      return await new Promise<Server>((resolve, reject) => {
        const server = createServer();
        server.once('error', reject);
        server.listen(port, HOST, () => resolve(server));
      });
    } catch (err) {
      if (attempt >= 200) throw err;
    }
  }
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

/** Whether something accepts TCP connections on the port. */
export function isPortOpen(port: number, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: HOST, port });
    const done = (open: boolean) => {
      socket.destroy();
      resolve(open);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}
