import * as grpc from '@grpc/grpc-js';
import { HealthImplementation } from 'grpc-health-check';
import type { Logger } from '../logger';
import { grpcServerMetrics } from '../observability/grpc-metrics';
import { loadService, type ServiceName, type ServiceRegistry } from './protos';
import { toGrpcError } from './status';
import { grpcHost, meshServerInterceptor, meshTrust, type MeshTrust } from './credentials';
import { healthPort, serverCredentials } from './tls';
import { carriesTraceIds, incomingContext, inContext } from '../observability/trace-context';
import { serveCallStream } from './call-stream';

type AsyncUnary<Req, Res> = (request: Req, call: grpc.ServerUnaryCall<Req, Res>) => Promise<Res>;

/**
 * A server-streaming handler: writes to `call` and settles when the stream is over (the server
 * then ends it) or fails (the error becomes the stream's status, as for unary handlers).
 */
export type AsyncServerStream<Req, Res> = (request: Req, call: grpc.ServerWritableStream<Req, Res>) => Promise<void>;

/**
 * A bidirectional-streaming handler: it reads and writes the call itself. `draining` is aborted
 * when the server starts shutting down: the handler then takes nothing new and ends the call once
 * what it took is answered (the server waits for that within its grace period).
 */
export type BidiStream<Req, Res> = (call: grpc.ServerDuplexStream<Req, Res>, draining: AbortSignal) => void;

/**
 * The `<Method>Stream` methods that carry a unary `<Method>` (grpc/call-stream.ts): the server
 * serves them with the unary method's handler, so a service writes none of them.
 */
type KnownKeys<H> = keyof { [K in keyof H as string extends K ? never : K]: 0 };
type CallStreamKeys<H> = { [K in KnownKeys<H>]: K extends `${infer M}Stream` ? (M extends KnownKeys<H> ? K : never) : never }[KnownKeys<H>];

/** The unary method a `<Method>Stream` of the service carries (grpc/call-stream.ts), if it is one. */
export function carriedMethod(definition: grpc.ServiceDefinition, method: string): string | undefined {
  const { requestStream, responseStream } = definition[method];
  const unary = definition[method.slice(0, -'Stream'.length)];
  return requestStream && responseStream && method.endsWith('Stream') && unary && !unary.requestStream && !unary.responseStream
    ? method.slice(0, -'Stream'.length)
    : undefined;
}

/** A service's handlers written as async functions of the request (streams: of the call). */
export type AsyncHandlers<H> = {
  [K in keyof H as string extends K ? never : K extends CallStreamKeys<H> ? never : K]: H[K] extends grpc.handleUnaryCall<
    infer Req,
    infer Res
  >
    ? AsyncUnary<Req, Res>
    : H[K] extends grpc.handleServerStreamingCall<infer Req, infer Res>
      ? AsyncServerStream<Req, Res>
      : H[K] extends grpc.handleBidiStreamingCall<infer Req, infer Res>
        ? BidiStream<Req, Res>
        : never;
};

/**
 * Runs a handler in the trace its call's `traceparent` names, when the kit carries trace ids
 * (export off; export on, the gRPC instrumentation does it).
 */
function inCallTrace<T>(name: string, metadata: grpc.Metadata, run: () => T): T {
  if (!carriesTraceIds()) return run();
  const header = (key: string) => {
    const v = metadata.get(key)[0];
    return v === undefined ? undefined : String(v);
  };
  return inContext(incomingContext(header, name), run);
}

function adapt<Req, Res>(name: string, fn: AsyncUnary<Req, Res>, log: Logger): grpc.handleUnaryCall<Req, Res> {
  return (call, callback) => {
    inCallTrace(name, call.metadata, () => fn(call.request, call)).then(
      (res) => callback(null, res),
      (err: unknown) => {
        const status = toGrpcError(err);
        if (status.code === grpc.status.INTERNAL) log.error({ err, method: name }, 'unhandled error in handler');
        callback(status);
      },
    );
  };
}

type OpenStreams = Set<grpc.ServerWritableStream<unknown, unknown>>;

function adaptServerStream<Req, Res>(
  name: string,
  fn: AsyncServerStream<Req, Res>,
  log: Logger,
  open: OpenStreams,
): grpc.handleServerStreamingCall<Req, Res> {
  return (call) => {
    const tracked = call as grpc.ServerWritableStream<unknown, unknown>;
    open.add(tracked);
    const settle = (status?: Partial<grpc.StatusObject>) => {
      open.delete(tracked);
      if (call.cancelled || call.writableEnded) return;
      if (status) call.emit('error', status);
      else call.end();
    };
    inCallTrace(name, call.metadata, () => fn(call.request, call)).then(
      () => settle(),
      (err: unknown) => {
        const status = toGrpcError(err);
        if (status.code === grpc.status.INTERNAL) log.error({ err, method: name }, 'unhandled error in stream handler');
        settle(status);
      },
    );
  };
}

/** The grpc.health.v1 service name that reflects the process only (Kubernetes liveness probes). */
export const LIVENESS = 'liveness';

export interface GrpcServerHandle {
  server: grpc.Server;
  port: number;
  health: HealthImplementation;
  /** The plaintext health-only port beside a TLS server, if one was asked for. */
  healthPort?: number;
  setServing(serving: boolean): void;
  /** Graceful shutdown bounded by `graceMs`, then forced. */
  shutdown(graceMs: number): Promise<void>;
}

export async function startGrpcServer<N extends ServiceName>(
  name: N,
  handlers: AsyncHandlers<ServiceRegistry[N]['handlers']>,
  port: number,
  log: Logger,
  host = grpcHost(),
  trust: MeshTrust = meshTrust(),
  plaintextHealthPort = healthPort(),
): Promise<GrpcServerHandle> {
  const { definition, fullName } = loadService(name);
  // Connections are recycled every few minutes so that clients spread over new replicas.
  const server = new grpc.Server({
    'grpc.max_receive_message_length': 32 * 1024 * 1024,
    'grpc.max_connection_age_ms': 5 * 60_000,
    'grpc.max_connection_age_grace_ms': 30_000,
    // Metrics see every call (refused ones too); then every call but health checks must carry a
    // valid mesh credential (grpc/credentials.ts).
    interceptors: [grpcServerMetrics, meshServerInterceptor(trust.secret)],
  });
  const impl: grpc.UntypedServiceImplementation = {};
  const openStreams: OpenStreams = new Set();
  const draining = new AbortController();
  for (const [method, fn] of Object.entries(handlers as Record<string, (req: unknown, call: never) => Promise<unknown>>)) {
    const { requestStream, responseStream } = definition[method];
    if (requestStream && responseStream) {
      const bidi = fn as unknown as BidiStream<unknown, unknown>;
      impl[method] = (call: grpc.ServerDuplexStream<unknown, unknown>) => bidi(call, draining.signal);
      continue;
    }
    impl[method] = responseStream
      ? adaptServerStream(`${fullName}/${method}`, fn as AsyncServerStream<unknown, unknown>, log, openStreams)
      : adapt(`${fullName}/${method}`, fn as AsyncUnary<unknown, unknown>, log);
  }
  // Each `<Method>Stream` beside a unary `<Method>` carries that method's calls: served by its
  // handler, each item as one call (its deadline, the stream's verified caller).
  for (const method of Object.keys(definition)) {
    const unaryName = carriedMethod(definition, method);
    const unary = (handlers as Record<string, AsyncUnary<unknown, unknown> | undefined>)[unaryName ?? ''];
    if (impl[method] || !unaryName || !unary) continue;
    impl[method] = (call: grpc.ServerDuplexStream<unknown, unknown>) =>
      serveCallStream(
        call,
        draining.signal,
        (request, item) =>
          unary(request, { request, metadata: item.metadata, getDeadline: () => item.deadline } as unknown as grpc.ServerUnaryCall<
            unknown,
            unknown
          >),
        { service: name, method: unaryName, server: name, log },
      );
  }
  server.addService(definition, impl);
  // Health answers NOT_SERVING until the caller says the service is ready (database connected).
  // `liveness` is the process alone (the event loop answers): SERVING as long as the server is up,
  // so that a liveness probe never restarts a pod for a slow or missing database.
  const health = new HealthImplementation({ '': 'NOT_SERVING', [fullName]: 'NOT_SERVING', [LIVENESS]: 'SERVING' });
  health.addToServer(server);
  const bind = (target: grpc.Server, at: number, credentials: grpc.ServerCredentials) =>
    new Promise<number>((resolve, reject) => target.bindAsync(`${host}:${at}`, credentials, (err, p) => (err ? reject(err) : resolve(p))));
  const bound = await bind(server, port, serverCredentials(trust.tls));
  // Kubernetes' gRPC probes cannot do TLS: under TLS, health alone answers in plaintext on its own port.
  let healthServer: grpc.Server | undefined;
  let boundHealth: number | undefined;
  if (trust.tls && plaintextHealthPort !== undefined) {
    healthServer = new grpc.Server();
    health.addToServer(healthServer);
    try {
      boundHealth = await bind(healthServer, plaintextHealthPort, grpc.ServerCredentials.createInsecure());
    } catch (err) {
      server.forceShutdown();
      throw err;
    }
  }
  const setServing = (serving: boolean) => {
    const s = serving ? 'SERVING' : 'NOT_SERVING';
    health.setStatus('', s);
    health.setStatus(fullName, s);
  };
  const shutdown = (graceMs: number) =>
    new Promise<void>((resolve) => {
      setServing(false);
      // Bidirectional streams answer what they took, then end (BidiStream).
      draining.abort();
      // Long-lived server streams would hold a graceful shutdown for the whole grace period: end
      // them with UNAVAILABLE so their clients reconnect to another replica at once.
      for (const call of openStreams) {
        if (!call.cancelled && !call.writableEnded) call.emit('error', { code: grpc.status.UNAVAILABLE, details: 'Server shutting down' });
      }
      openStreams.clear();
      healthServer?.forceShutdown();
      const timer = setTimeout(() => {
        server.forceShutdown();
        resolve();
      }, graceMs);
      server.tryShutdown(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  return { server, port: bound, health, healthPort: boundHealth, setServing, shutdown };
}
