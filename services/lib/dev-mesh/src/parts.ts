import { dirname, join } from 'node:path';
import { freePort } from './ports';
import { replicaName } from './replicas';

/** A service process of the mesh: what it runs, where it listens, and the env names its callers find it by. */
export interface Part {
  /** The process: the service's name for its first replica, `<service>-<n>` for the n-th. */
  name: string;
  main: string;
  grpcPort: number;
  graphqlPort: number;
  addrEnv: string;
  urlEnv: string;
}

const SERVICES = [
  { name: 'tickets', pkg: '@convo/tickets', grpc: 50051, graphql: 4001, env: 'TICKETS' },
  { name: 'messaging', pkg: '@convo/messaging', grpc: 50052, graphql: 4002, env: 'MESSAGING' },
  { name: 'channel-engines', pkg: '@convo/channel-engines', grpc: 50053, graphql: 4003, env: 'CHANNEL_ENGINES' },
  { name: 'social-config', pkg: '@convo/social-config', grpc: 50054, graphql: 4004, env: 'SOCIAL_CONFIG' },
  { name: 'tenants', pkg: '@convo/tenants', grpc: 50055, graphql: 4005, env: 'TENANTS' },
];

/** Every replica of every service, by the replica names of `replicas` (a deployment's names). */
export async function serviceParts(replicas: Record<string, string[]>, freePorts: boolean): Promise<Part[]> {
  const parts: Part[] = [];
  for (const s of SERVICES) {
    // Replicas past the first listen 100 ports further each (50052, 50152, …) unless ports are picked free.
    for (let i = 0; i < replicas[s.name].length; i++) {
      parts.push({
        name: replicaName(s.name, i),
        main: join(dirname(require.resolve(`${s.pkg}/package.json`)), 'dist', 'main.js'),
        grpcPort: freePorts ? await freePort() : s.grpc + 100 * i,
        graphqlPort: freePorts ? await freePort() : s.graphql + 100 * i,
        addrEnv: `${s.env}_GRPC_ADDR`,
        urlEnv: `${s.env}_GRAPHQL_URL`,
      });
    }
  }
  return parts;
}
