// `npm start` (a dev tool, not part of any image): the whole mesh on one machine. Starts the database, each service as its own
// process, then the gateway; prints where everything listens. Its data and super-admin token are
// kept in `.data/` of the checkout across starts (`npm run reset` wipes them); a process that dies
// is reported and restarted with backoff, as Kubernetes would.
// By path, not through the kit's index: the supervisor's own loading comes before anything starts,
// and the index brings the tracing SDK, prom-client and more that it never uses.
import { checkHealth, closeHealthClients } from '@convo/kit/grpc/health';
import { FERRETDB_POOL_SIZE, resetDatabase, startDatabase } from '@convo/dev-db';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { readyBanner } from './banner';
import { killChild, restartDelayMs, terminateChild, waitUntil } from './children';
import { KEPT_SECRETS, keptSecret, type KeptSecret } from './kept-secrets';
import { NODE_FLAGS } from './node-flags';
import { freePort } from './ports';
import { serviceParts, type Part } from './parts';
import { DEPLOYMENTS, replicaCount, replicaName } from './replicas';
import type { Mesh, MeshOptions } from './types';

export { NODE_FLAGS } from './node-flags';
export { freePort } from './ports';
export { DEPLOYMENTS, replicaCount, replicaName } from './replicas';
export type { Mesh, MeshOptions } from './types';

/** The env's value, else the one kept in `dataDir`, else (a test's mesh) a fresh random one. */
const secretFor = (name: KeptSecret, dataDir: string | undefined): string =>
  process.env[name] || (dataDir ? keptSecret(dataDir, name) : randomBytes(32).toString('base64url'));

/**
 * Where a child keeps the code V8 compiled for it, across starts (Node ≥ 22.1 reads
 * NODE_COMPILE_CACHE; Node 20 ignores it). One folder per process: compiling the modules is a
 * large part of a process's start-up CPU, and the nine processes share two cores here.
 */
const compileCacheEnv = (dir: string): Record<string, string> => ({ NODE_COMPILE_CACHE: dir });

/** Wipes what `npm start` kept in `dataDir` (`npm run reset`). */
export async function resetMeshData(dataDir: string): Promise<void> {
  await resetDatabase(join(dataDir, 'db'));
  for (const file of Object.values(KEPT_SECRETS)) rmSync(join(dataDir, file), { force: true });
  rmSync(join(dataDir, 'compile-cache'), { recursive: true, force: true });
}

/** Each mesh process's connections to the embedded database, and the database's connections beyond theirs. */
const PER_PROCESS = 2;
const SPARE_CONNECTIONS = 4;

export async function startMesh(opts: MeshOptions = {}): Promise<Mesh> {
  const superAdminToken =
    opts.superAdminToken ??
    (process.env.SUPER_ADMIN_TOKEN ||
      (opts.dataDir ? keptSecret(opts.dataDir, 'SUPER_ADMIN_TOKEN') : randomBytes(24).toString('base64url')));
  const onLine = opts.onLine ?? ((part, line) => process.stdout.write(`[${part}] ${line}\n`));
  const count = (deployment: string) => replicaCount(deployment, opts.replicas, process.env);
  const replicas: Record<string, string[]> = Object.fromEntries(
    DEPLOYMENTS.map((d) => [d, Array.from({ length: count(d) }, (_, i) => replicaName(d, i))]),
  );
  // The embedded FerretDB deadlocks when its clients keep as many operations at once as it has
  // PostgreSQL connections (an update holds one while it takes another): every process that uses
  // the database keeps PER_PROCESS connections, and FerretDB gets more than all of them together
  // (a few left for cursors walked in batches and for tests).
  const databaseProcesses = Object.entries(replicas).reduce((n, [d, names]) => n + (d === 'gateway' ? 0 : names.length), 0);
  const poolSize = Math.max(FERRETDB_POOL_SIZE, databaseProcesses * PER_PROCESS + SPARE_CONNECTIONS);
  const database = await startDatabase({
    name: 'mesh',
    ...(opts.dataDir && { dataDir: join(opts.dataDir, 'db') }),
    postgresPoolSize: poolSize,
    // The first start may build FerretDB (minutes): its progress is shown.
    log: (line) => onLine('dev-db', line),
  });
  const poolShare: Record<string, string> =
    database.kind.startsWith('ferretdb') && !process.env.MONGODB_MAX_POOL_SIZE
      ? { MONGODB_MAX_POOL_SIZE: String(Math.floor((poolSize - SPARE_CONNECTIONS) / databaseProcesses)) }
      : {};
  const parts = await serviceParts(replicas, !!opts.freePorts);
  const gatewayPort = opts.gatewayPort ?? (opts.freePorts ? await freePort() : Number(process.env.PORT ?? 8080));
  const gatewayPorts = [gatewayPort];
  for (let i = 1; i < replicas.gateway.length; i++) gatewayPorts.push(opts.freePorts ? await freePort() : gatewayPort + i);
  // A service's address is the list of its replicas' (the kit's clients round-robin over them, as
  // over a headless Service), and so is its GraphQL subgraph's URL (the gateway takes them in turn).
  const addressOf = (env: string) =>
    parts
      .filter((p) => p.addrEnv === env)
      .map((p) => `127.0.0.1:${p.grpcPort}`)
      .join(',');
  const urlsOf = (env: string) =>
    parts
      .filter((p) => p.urlEnv === env)
      .map((p) => `http://127.0.0.1:${p.graphqlPort}/graphql`)
      .join(',');
  const common: Record<string, string> = {
    MONGODB_URI: database.uri,
    // The installation's mesh secret (docs/security.md "Inside the mesh"): every process's gRPC calls carry
    // a credential made with it, and every service refuses calls without one.
    MESH_SECRET: secretFor('MESH_SECRET', opts.dataDir),
    SUPER_ADMIN_TOKEN: superAdminToken,
    // What the gateway presents to the subgraphs: not the super-admin token, which the services
    // then never need to hold (docs/operations.md "Environment").
    SUBGRAPH_TOKEN: secretFor('SUBGRAPH_TOKEN', opts.dataDir),
    // Signs tenant administrators' sessions; every gateway replica of the mesh gets the same one.
    SESSION_SECRET: secretFor('SESSION_SECRET', opts.dataDir),
    // Providers fetch stored media through the gateway's signed links.
    PUBLIC_BASE_URL: process.env.PUBLIC_BASE_URL ?? `http://127.0.0.1:${gatewayPort}`,
    ...poolShare,
    ...Object.fromEntries(
      parts
        .filter((p) => !/-\d+$/.test(p.name))
        .flatMap((p) => [
          [p.addrEnv, addressOf(p.addrEnv)],
          [p.urlEnv, urlsOf(p.urlEnv)],
        ]),
    ),
    ...opts.env,
  };

  const processes = new Map<string, ChildProcess>();
  const endpoints: Mesh['endpoints'] = new Map();
  for (const p of parts) endpoints.set(p.name, { http: `http://127.0.0.1:${p.graphqlPort}`, grpc: `127.0.0.1:${p.grpcPort}` });
  replicas.gateway.forEach((name, i) => endpoints.set(name, { http: `http://127.0.0.1:${gatewayPorts[i]}` }));
  /** How each process was started and how to tell it is ready, for restart(). */
  const starters = new Map<string, (env?: Record<string, string>) => Promise<unknown>>();
  let stopping = false;
  let indexesRecorded = false;
  // Whatever happens to the parent (a test runner exiting, an uncaught error), no child outlives it.
  process.once('exit', () => {
    for (const child of processes.values()) if (child.exitCode === null) child.kill('SIGKILL');
  });
  /** Unexpected exits in a row per process, for the restart backoff; reset once it ran a minute. */
  const crashes = new Map<string, number>();
  const restartLater = (name: string, ranMs: number) => {
    const n = ranMs > 60_000 ? 1 : (crashes.get(name) ?? 0) + 1;
    crashes.set(name, n);
    const delayMs = restartDelayMs(n);
    onLine('mesh', `restarting ${name} in ${delayMs / 1000} s (restart ${n})`);
    setTimeout(() => {
      // A failed start-up exits again, which schedules the next attempt.
      if (!stopping)
        void starters
          .get(name)?.()
          .catch(() => undefined);
    }, delayMs).unref();
  };
  const launch = (name: string, main: string, env: Record<string, string>) => {
    // The Deployments' flags, then MESH_NODE_ARGS: more for every process (`--cpu-prof`), or for one
    // start (restart's env; a later flag wins).
    const nodeArgs = [...NODE_FLAGS, ...(env.MESH_NODE_ARGS ?? process.env.MESH_NODE_ARGS ?? '').split(/\s+/).filter(Boolean)];
    // QUERY_LOG (the e2e suite's index-coverage check): the test tooling that records every query
    // is preloaded into each process; without it no process carries any of it.
    if (process.env.QUERY_LOG) nodeArgs.unshift('--require', require.resolve('@convo/test-support/query-log-preload'));
    // npm start keeps compiled code with its data; the tests' meshes start from source each time.
    const cache = opts.dataDir ? compileCacheEnv(join(opts.dataDir, 'compile-cache', name)) : {};
    const child = spawn(process.execPath, ['--enable-source-maps', ...nodeArgs, main], {
      env: { ...process.env, ...common, ...cache, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    for (const stream of [child.stdout!, child.stderr!]) {
      createInterface({ input: stream }).on('line', (line) => onLine(name, line));
    }
    const startedAt = Date.now();
    child.once('exit', (code) => {
      if (stopping) return;
      (opts.onCrash ?? ((p, c) => onLine('mesh', `${p} exited unexpectedly (code ${c})`)))(name, code);
      if (opts.restartOnCrash && processes.get(name) === child) restartLater(name, Date.now() - startedAt);
    });
    processes.set(name, child);
    return child;
  };

  const stop = async () => {
    stopping = true;
    await Promise.all([...processes.values()].map((child) => terminateChild(child)));
    closeHealthClients();
    // QUERY_LOG (the e2e suite's index-coverage check): the indexes the services declared, as the
    // database has them, next to the queries they sent. Inherited by every process of the mesh.
    if (process.env.QUERY_LOG && !indexesRecorded) {
      indexesRecorded = true;
      // Loaded only here: it brings mongoose, which nothing else in the supervisor needs.
      const { recordServerIndexes } = await import('@convo/test-support/query-log');
      await recordServerIndexes(database.uri).catch((err: Error) => onLine('mesh', `recording indexes failed: ${err.message}`));
    }
    await database.stop();
  };

  // The workers, each its own process on its service's database (no gRPC port): messaging's
  // webhook relay and message dispatcher, tenants' payment reconciler.
  const messagingDist = join(dirname(require.resolve('@convo/messaging/package.json')), 'dist');
  const workerMains = {
    relay: join(messagingDist, 'relay', 'main.js'),
    dispatcher: join(messagingDist, 'dispatcher', 'main.js'),
    reconciler: join(dirname(require.resolve('@convo/tenants/package.json')), 'dist', 'reconciler', 'main.js'),
  };
  /**
   * How long the gateway and a worker may take to be ready (opts.startDeadlineMs, else
   * MESH_START_TIMEOUT_MS, for a machine busy with other work); the services get at least 60 s.
   */
  const startDeadlineMs = opts.startDeadlineMs ?? (Number(process.env.MESH_START_TIMEOUT_MS) || (opts.startTogether ? 60_000 : 30_000));
  const serviceDeadlineMs = Math.max(60_000, opts.startDeadlineMs ?? (Number(process.env.MESH_START_TIMEOUT_MS) || 0));
  const startWorker = async (worker: keyof typeof workerMains, name: string, env: Record<string, string> = {}) => {
    const healthPort = await freePort();
    // A stable id: a worker restarted under the same name takes its own leases back at once.
    const id = { [`${worker.toUpperCase()}_ID`]: name };
    starters.set(name, () => startWorker(worker, name, env));
    const child = launch(name, workerMains[worker], { [`${worker.toUpperCase()}_HEALTH_PORT`]: String(healthPort), ...id, ...env });
    endpoints.set(name, { http: `http://127.0.0.1:${healthPort}` });
    await waitUntil(
      name,
      startDeadlineMs,
      async () => (await fetch(`http://127.0.0.1:${healthPort}/readyz`).catch(() => undefined))?.status === 200,
      () => child.exitCode === null,
    );
    return child;
  };
  const startRelay = (name = 'messaging-relay') => startWorker('relay', name);
  const startDispatcher = (name = 'messaging-dispatcher', env?: Record<string, string>) => startWorker('dispatcher', name, env);
  const startReconciler = (name = 'tenants-reconciler') => startWorker('reconciler', name);

  try {
    const startPart = async (p: Part, env: Record<string, string> = {}) => {
      starters.set(p.name, (again) => startPart(p, again));
      const child = launch(p.name, p.main, { GRPC_PORT: String(p.grpcPort), GRAPHQL_PORT: String(p.graphqlPort), ...env });
      await waitUntil(
        p.name,
        serviceDeadlineMs,
        async () => (await checkHealth(`127.0.0.1:${p.grpcPort}`, 500)) === 'SERVING',
        () => child.exitCode === null,
      );
    };
    const gatewayUrls = gatewayPorts.map((port) => `http://127.0.0.1:${port}`);
    const gatewayUrl = gatewayUrls[0];
    const startGateway = async (i: number, env: Record<string, string> = {}) => {
      const name = replicas.gateway[i];
      starters.set(name, (again) => startGateway(i, again));
      const gateway = launch(name, join(dirname(require.resolve('@convo/gateway/package.json')), 'dist', 'main.js'), {
        PORT: String(gatewayPorts[i]),
        ...env,
      });
      await waitUntil(
        name,
        startDeadlineMs,
        async () => (await fetch(`${gatewayUrls[i]}/readyz`).catch(() => undefined))?.status === 200,
        () => gateway.exitCode === null,
      );
    };
    const frontAndWorkers = () => [
      ...replicas.gateway.map((_, i) => startGateway(i)),
      ...replicas['messaging-relay'].map((name) => startRelay(name)),
      ...replicas['messaging-dispatcher'].map((name) => startDispatcher(name)),
      ...replicas['tenants-reconciler'].map((name) => startReconciler(name)),
    ];
    if (opts.startTogether) {
      await Promise.all([...frontAndWorkers(), ...parts.map((p) => startPart(p))]);
    } else {
      // The services first, then the gateway and the workers: on two cores, nine Node processes
      // loading at once each take several times longer (a gateway under an e2e suite's load then
      // missed its 30 s).
      await Promise.all(parts.map((p) => startPart(p)));
      await Promise.all(frontAndWorkers());
    }
    const terminate = (name: string) => terminateChild(processes.get(name));
    const kill = (name: string) => killChild(processes.get(name));
    const restart = async (name: string, env?: Record<string, string>) => {
      const start = starters.get(name);
      if (!start) throw new Error(`no process ${name} to restart`);
      await start(env);
    };
    const grpcAddresses = Object.fromEntries([...endpoints].flatMap(([name, e]) => (e.grpc ? [[name, e.grpc]] : [])));
    return {
      gatewayUrl,
      gatewayUrls,
      replicas,
      graphqlUrl: `${gatewayUrl}/graphql`,
      superAdminToken,
      grpcAddresses,
      database,
      processes,
      endpoints,
      env: common,
      startRelay,
      startDispatcher,
      kill,
      restart,
      terminate,
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** `.data/` at the root of the checkout (ignored by git). */
const DEV_DATA_DIR = join(__dirname, '..', '..', '..', '..', '.data');

if (require.main === module && process.argv[2] === 'reset') {
  resetMeshData(DEV_DATA_DIR).then(
    () => console.log(`[mesh] wiped ${DEV_DATA_DIR} (database and the kept secrets)`),
    (err: Error) => {
      console.error(`[mesh] reset failed: ${err.message}`);
      process.exit(1);
    },
  );
} else if (require.main === module) {
  let mesh: Mesh | undefined;
  const shutdown = (code: number) => {
    void (mesh?.stop() ?? Promise.resolve()).finally(() => process.exit(code));
  };
  startMesh({
    // npm start is a development mesh: seed the development plans when there are none, and no
    // warm-up (its one gateway never joins a mesh under load; it cost 7-8 s of every start).
    env: { SEED_DEV_PLANS: process.env.SEED_DEV_PLANS ?? 'true', WARMUP_MS: process.env.WARMUP_MS ?? '0' },
    dataDir: DEV_DATA_DIR,
    restartOnCrash: true,
    startTogether: true,
    onCrash: (part, code) => console.error(`\n[mesh] ${part} exited unexpectedly (code ${code})`),
  }).then(
    (m) => {
      mesh = m;
      console.log(readyBanner(m, DEV_DATA_DIR));
    },
    (err: Error) => {
      console.error(`[mesh] failed to start: ${err.message}`);
      process.exit(1);
    },
  );
  process.once('SIGINT', () => shutdown(0));
  process.once('SIGTERM', () => shutdown(0));
}
