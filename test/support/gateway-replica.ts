import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';

const ENV_PREFIX: Record<string, string> = {
  tickets: 'TICKETS',
  messaging: 'MESSAGING',
  'channel-engines': 'CHANNEL_ENGINES',
  'social-config': 'SOCIAL_CONFIG',
  tenants: 'TENANTS',
};

/**
 * Learns where each service of a mesh listens from its "serving" log line (the mesh picks free
 * ports), as the environment a gateway needs to reach them: pass `onLine` to startMesh.
 */
export function serviceAddresses() {
  const env: Record<string, string> = {};
  const onLine = (part: string, line: string) => {
    const prefix = ENV_PREFIX[part];
    if (!prefix || !line.includes('"grpcPort"')) return;
    const { grpcPort, graphqlPort } = JSON.parse(line) as { grpcPort: number; graphqlPort: number };
    env[`${prefix}_GRPC_ADDR`] = `127.0.0.1:${grpcPort}`;
    env[`${prefix}_GRAPHQL_URL`] = `http://127.0.0.1:${graphqlPort}/graphql`;
  };
  return { env, onLine };
}

export interface GatewayReplica {
  url: string;
  stop(): Promise<void>;
}

/** A second gateway process in front of the same services: another replica of the REST facade. */
export async function startGatewayReplica(port: number, env: Record<string, string>): Promise<GatewayReplica> {
  const main = join(dirname(require.resolve('@convo/gateway/package.json')), 'dist', 'main.js');
  const child: ChildProcess = spawn(process.execPath, [main], {
    env: { ...process.env, LOG_LEVEL: 'warn', ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  for (const stream of [child.stdout!, child.stderr!]) createInterface({ input: stream }).on('line', (l) => output.push(l));
  const url = `http://127.0.0.1:${port}`;
  const until = Date.now() + 30_000;
  while ((await fetch(`${url}/healthz`).catch(() => undefined))?.status !== 200) {
    if (child.exitCode !== null || Date.now() > until) {
      child.kill('SIGKILL');
      throw new Error(`gateway replica did not start:\n${output.join('\n')}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        const force = setTimeout(() => child.kill('SIGKILL'), 15_000);
        child.once('exit', () => {
          clearTimeout(force);
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
}
