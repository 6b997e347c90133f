import * as grpc from '@grpc/grpc-js';
import { loadService, type ServiceName, type ServiceRegistry } from './protos';

export interface CallOptions {
  /** Milliseconds; every call has a deadline. */
  deadlineMs?: number;
}

type Unary<A, R> = (argument: A, callback: grpc.requestCallback<R>) => grpc.ClientUnaryCall;
type ServerStream<A, R> = (argument: A, options?: grpc.CallOptions) => grpc.ClientReadableStream<R>;

/**
 * The PascalCase methods of a generated client: unary ones as promise-returning functions,
 * server-streaming ones as functions that open the stream (no deadline: it lives until cancelled).
 */
export type RpcClient<C> = {
  [K in keyof C as K extends string
    ? K extends Capitalize<K>
      ? C[K] extends Unary<any, any> | ServerStream<any, any>
        ? K
        : never
      : never
    : never]: C[K] extends Unary<infer A, infer R>
    ? (request: A, options?: CallOptions) => Promise<R>
    : C[K] extends ServerStream<infer A, infer R>
      ? (request: A) => grpc.ClientReadableStream<R>
      : never;
};

export type ServiceClient<N extends ServiceName> = RpcClient<ServiceRegistry[N]['client']>;

const DEFAULT_DEADLINE_MS = 5_000;

// One client (one HTTP/2 channel) per service and address for the whole process.
const clients = new Map<string, grpc.Client>();

export function createClient<N extends ServiceName>(
  name: N,
  address: string,
  defaults: CallOptions = {},
): ServiceClient<N> {
  const key = `${name}@${address}`;
  let raw = clients.get(key);
  if (!raw) {
    const { Client } = loadService(name);
    raw = new Client(address, grpc.credentials.createInsecure(), {
      'grpc.keepalive_time_ms': 30_000,
      'grpc.keepalive_timeout_ms': 10_000,
    });
    clients.set(key, raw);
  }
  const client = raw;
  const wrapper: Record<string, unknown> = {};
  const { definition } = loadService(name);
  for (const method of Object.keys(definition)) {
    if (definition[method].responseStream) {
      wrapper[method] = (request: unknown) =>
        (client as unknown as Record<string, Function>)[method].call(client, request, new grpc.Metadata(), {});
      continue;
    }
    wrapper[method] = (request: unknown, options: CallOptions = {}) =>
      new Promise((resolve, reject) => {
        const deadline = Date.now() + (options.deadlineMs ?? defaults.deadlineMs ?? DEFAULT_DEADLINE_MS);
        (client as unknown as Record<string, Function>)[method].call(
          client,
          request,
          new grpc.Metadata(),
          { deadline },
          (err: grpc.ServiceError | null, res: unknown) => (err ? reject(err) : resolve(res)),
        );
      });
  }
  return wrapper as ServiceClient<N>;
}

/** Closes every channel this process opened (on shutdown and between tests). */
export function closeAllClients(): void {
  for (const c of clients.values()) c.close();
  clients.clear();
}
