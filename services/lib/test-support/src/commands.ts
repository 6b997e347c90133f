import type { Connection } from 'mongoose';

/**
 * The commands a connection sent while `fn` ran, in order, as `<command> <collection>` (e.g. `find
 * channels`), from the driver's command monitoring (connectDatabase turns it on): what a test
 * counts to hold a path to its number of database round trips.
 */
export async function commandsDuring(conn: Connection, fn: () => Promise<unknown>): Promise<string[]> {
  const client = conn.getClient();
  const seen: string[] = [];
  const record = (e: { commandName: string; command: Record<string, unknown> }) =>
    void seen.push(`${e.commandName} ${String(e.command[e.commandName])}`);
  client.on('commandStarted', record);
  try {
    await fn();
  } finally {
    client.off('commandStarted', record);
  }
  return seen;
}
