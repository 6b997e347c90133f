import type { Database } from './types';

/** Last resort: a real mongod, which mongodb-memory-server downloads on first use. */
export async function startMemoryServer(): Promise<Database> {
  // Loaded lazily: most runs never get here, and the module pulls in a lot.
  const { MongoMemoryServer } = await import('mongodb-memory-server-core');
  const server = await MongoMemoryServer.create();
  let stopping: Promise<unknown> | undefined;
  return {
    uri: server.getUri(),
    kind: 'memory-server',
    stop: async () => {
      stopping ??= server.stop({ doCleanup: true });
      await stopping;
    },
  };
}
