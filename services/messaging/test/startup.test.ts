import { checkHealth, closeHealthClients, LIVENESS } from '@convo/kit';
import { startDatabase, type Database } from '@convo/dev-db';
import { freeLoopbackPort, startTcpProxy, SUPER_ADMIN_TOKEN, type TcpProxy } from '@convo/test-support';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

// The built processes, as Kubernetes runs them: messaging (the kit's service runner) and its
// webhook relay, started while their database is not there yet. They must wait for it (health
// NOT_SERVING, /readyz 503, retrying with backoff) rather than exit, and serve once it comes.

const DIST = join(__dirname, '..', 'dist');

interface Proc {
  child: ChildProcess;
  lines: string[];
  exited: Promise<number | null>;
}

/** Starts a built process; a variable given as undefined is removed from the environment. */
function run(main: string, env: Record<string, string | undefined>): Proc {
  const merged: NodeJS.ProcessEnv = { ...process.env, SUBGRAPH_TOKEN: SUPER_ADMIN_TOKEN, LOG_LEVEL: 'info', ...env };
  for (const [k, v] of Object.entries(merged)) if (v === undefined) delete merged[k];
  const child = spawn(process.execPath, [join(DIST, main)], {
    env: merged,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  for (const stream of [child.stdout!, child.stderr!]) createInterface({ input: stream }).on('line', (l) => lines.push(l));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, lines, exited };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function eventually(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 20_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (await check()) return;
    await sleep(100);
  }
  throw new Error(`timed out waiting for ${what}`);
}

const httpStatus = async (url: string) => (await fetch(url).catch(() => undefined))?.status ?? 0;
const retries = (p: Proc) => p.lines.filter((l) => l.includes('database not reachable; retrying')).length;
const alive = (p: Proc) => p.child.exitCode === null && p.child.signalCode === null;

describe('start-up against a database that is not there yet', () => {
  let database: Database;
  let proxy: TcpProxy | undefined;
  const procs: Proc[] = [];

  beforeAll(async () => {
    database = await startDatabase({ name: 'messaging-startup-test' });
  });

  afterAll(async () => {
    for (const p of procs) if (alive(p)) p.child.kill('SIGKILL');
    closeHealthClients();
    await proxy?.close();
    await database?.stop();
  });

  it('waits for the database (NOT_SERVING, /readyz 503) without exiting, then serves', async () => {
    const target = new URL(database.uri);
    const dbPort = await freeLoopbackPort(); // nothing listens here until the proxy opens it
    const common = {
      MONGODB_URI: `mongodb://127.0.0.1:${dbPort}/`,
      MONGODB_SERVER_SELECTION_TIMEOUT_MS: '500',
    };
    const [grpcPort, graphqlPort, relayPort, dispatcherPort] = await Promise.all([
      freeLoopbackPort(),
      freeLoopbackPort(),
      freeLoopbackPort(),
      freeLoopbackPort(),
    ]);
    const messaging = run('main.js', { ...common, GRPC_PORT: String(grpcPort), GRAPHQL_PORT: String(graphqlPort) });
    const relay = run('relay/main.js', { ...common, RELAY_HEALTH_PORT: String(relayPort) });
    const dispatcher = run('dispatcher/main.js', { ...common, DISPATCHER_HEALTH_PORT: String(dispatcherPort) });
    procs.push(messaging, relay, dispatcher);
    const addr = `127.0.0.1:${grpcPort}`;
    const relayUrl = `http://127.0.0.1:${relayPort}`;
    const dispatcherUrl = `http://127.0.0.1:${dispatcherPort}`;

    await eventually('messaging answering health', async () => (await checkHealth(addr, 500)) === 'NOT_SERVING');
    expect(await checkHealth(addr, 500, LIVENESS)).toBe('SERVING');
    await eventually('the relay answering /healthz', async () => (await httpStatus(`${relayUrl}/healthz`)) === 200);
    expect(await httpStatus(`${relayUrl}/readyz`)).toBe(503);
    await eventually('the dispatcher answering /healthz', async () => (await httpStatus(`${dispatcherUrl}/healthz`)) === 200);
    expect(await httpStatus(`${dispatcherUrl}/readyz`)).toBe(503);

    // Several failed attempts, and both processes still there.
    await eventually('a few retries', () => retries(messaging) >= 2 && retries(relay) >= 2 && retries(dispatcher) >= 2);
    expect(alive(messaging) && alive(relay) && alive(dispatcher)).toBe(true);
    expect(await checkHealth(addr, 500)).toBe('NOT_SERVING');

    proxy = await startTcpProxy(dbPort, { host: target.hostname, port: Number(target.port) });
    await eventually('messaging SERVING', async () => (await checkHealth(addr, 500)) === 'SERVING');
    await eventually('the relay ready', async () => (await httpStatus(`${relayUrl}/readyz`)) === 200);
    await eventually('the dispatcher ready', async () => (await httpStatus(`${dispatcherUrl}/readyz`)) === 200);
    expect(messaging.lines.some((l) => l.includes('database connected'))).toBe(true);

    messaging.child.kill('SIGTERM');
    relay.child.kill('SIGTERM');
    dispatcher.child.kill('SIGTERM');
    expect(await messaging.exited).toBe(0);
    expect(await relay.exited).toBe(0);
    expect(await dispatcher.exited).toBe(0);
  });

  it('stops, exit 0, when SIGTERM comes while the database is still awaited', async () => {
    const common = { MONGODB_URI: `mongodb://127.0.0.1:${await freeLoopbackPort()}/`, MONGODB_SERVER_SELECTION_TIMEOUT_MS: '500' };
    const [grpcPort, relayPort] = await Promise.all([freeLoopbackPort(), freeLoopbackPort()]);
    const messaging = run('main.js', { ...common, GRPC_PORT: String(grpcPort), GRAPHQL_PORT: '0' });
    const relay = run('relay/main.js', { ...common, RELAY_HEALTH_PORT: String(relayPort) });
    procs.push(messaging, relay);
    await eventually('both waiting', () => retries(messaging) >= 1 && retries(relay) >= 1);
    messaging.child.kill('SIGTERM');
    relay.child.kill('SIGTERM');
    expect(await messaging.exited).toBe(0);
    expect(await relay.exited).toBe(0);
    expect(messaging.lines.some((l) => l.includes('stopped before start-up completed'))).toBe(true);
  });

  it('refuses to start in production with a loopback, unset or placeholder PUBLIC_BASE_URL', async () => {
    for (const value of [undefined, 'http://127.0.0.1:8080', 'https://CHANGE-ME.invalid']) {
      const p = run('main.js', {
        NODE_ENV: 'production',
        PUBLIC_BASE_URL: value,
        MONGODB_URI: database.uri,
        GRPC_PORT: '0',
        GRAPHQL_PORT: '0',
      });
      procs.push(p);
      expect(await p.exited).toBe(1);
      expect(p.lines.join('\n')).toContain('PUBLIC_BASE_URL');
    }
  });
});
