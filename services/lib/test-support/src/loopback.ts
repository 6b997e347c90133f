import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Listening {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  url: string;
  /** Drops open connections (held or keep-alive) and closes the server. */
  close(): Promise<void>;
}

/** Listens on a port of 127.0.0.1 chosen by the system: the one place fake servers of tests live. */
export async function listenOnLoopback(server: Server): Promise<Listening> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
