import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { protoPath } from 'grpc-health-check';
import { channelCredentials, meshTls } from './tls';

interface HealthClient extends grpc.Client {
  check(req: { service: string }, options: grpc.CallOptions, cb: (err: grpc.ServiceError | null, res?: { status: string }) => void): void;
}

let HealthCtor: (new (addr: string, creds: grpc.ChannelCredentials, options: grpc.ChannelOptions) => HealthClient) | undefined;
/**
 * A probe asks again soon: with grpc-js's default reconnect backoff (1 s, growing to 2 min) a peer
 * probed once before it listened stayed UNREACHABLE to this client for seconds after it came up.
 */
const PROBE_CHANNEL: grpc.ChannelOptions = { 'grpc.initial_reconnect_backoff_ms': 100, 'grpc.max_reconnect_backoff_ms': 1_000 };
const clients = new Map<string, HealthClient>();

/** grpc.health.v1 Check against a peer: its status, or UNREACHABLE when it does not answer in time. */
export function checkHealth(address: string, deadlineMs = 1_000, service = ''): Promise<string> {
  HealthCtor ??= (grpc.loadPackageDefinition(protoLoader.loadSync(protoPath, { enums: String })) as any).grpc.health.v1.Health;
  let client = clients.get(address);
  if (!client) {
    // The peer's main port: TLS when the mesh uses it (health needs no mesh credential otherwise).
    client = new HealthCtor!(address, channelCredentials(meshTls()), PROBE_CHANNEL);
    clients.set(address, client);
  }
  return new Promise((resolve) =>
    client!.check({ service }, { deadline: Date.now() + deadlineMs }, (err, res) =>
      resolve(err ? 'UNREACHABLE' : (res?.status ?? 'UNKNOWN')),
    ),
  );
}

export function closeHealthClients(): void {
  for (const c of clients.values()) c.close();
  clients.clear();
}
