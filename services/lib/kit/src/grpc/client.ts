import * as grpc from '@grpc/grpc-js';
import { meshCaller, meshClientInterceptor, meshTrust } from './credentials';
import { channelCredentials } from './tls';
import { grpcClientMetrics } from '../observability/grpc-metrics';
import { processEnv } from '../config';
import { loadService, type ServiceName, type ServiceRegistry } from './protos';
import { carriesTraceIds, injectTraceContext } from '../observability/trace-context';
import { CallStream, type CallItem, type CallOutcome } from './call-stream';

export interface CallOptions {
  /** Milliseconds; every call has a deadline. */
  deadlineMs?: number;
  /**
   * How long a call waits for a connection to a peer it is not connected to (within its deadline).
   * A peer that refuses connections fails the call at once; this bounds the wait for one that
   * does not answer at all (a vanished pod), so that the caller learns UNAVAILABLE quickly.
   */
  connectTimeoutMs?: number;
}

/**
 * Unary methods whose calls go on the method's `<Method>Stream` (grpc/call-stream.ts): all of them
 * (`true`), or those whose request the predicate picks (the others stay unary calls).
 */
export type StreamedMethods = Record<string, true | ((request: never) => boolean)>;

/** Client-wide settings besides the call defaults. */
export interface ClientOptions extends CallOptions {
  /** The name its calls carry (grpc/credentials.ts); the process's mesh caller by default. */
  caller?: string;
  /**
   * The hot unary methods carried on one stream each: they answer and fail as unary calls do, with
   * the same deadlines, and a peer without a connection fails them after the connect budget too.
   * One set of streams (streamLanes) per method, caller and address for the whole process (the
   * first client's settings).
   */
  streamed?: StreamedMethods;
  /** How long one stream takes new calls (CallStream's streamMs). */
  streamMs?: number;
  /**
   * How many streams a streamed method keeps open at once, its calls taken by each in turn: one per
   * address of a list (each stream starts on the next replica, round_robin), `GRPC_STREAM_LANES`
   * (4) for a `dns:` target, whose replicas are not counted here; one for a single address.
   */
  streamLanes?: number;
}

type Unary<A, R> = (argument: A, callback: grpc.requestCallback<R>) => grpc.ClientUnaryCall;
type ServerStream<A, R> = (argument: A, options?: grpc.CallOptions) => grpc.ClientReadableStream<R>;
type BidiStream<A, R> = (options?: grpc.CallOptions) => grpc.ClientDuplexStream<A, R>;

/**
 * The PascalCase methods of a generated client: unary ones as promise-returning functions,
 * streaming ones as functions that open the stream (no deadline: it lives until ended or cancelled).
 */
export type RpcClient<C> = {
  [
    K in keyof C as K extends string
      ? K extends Capitalize<K>
        ? C[K] extends Unary<any, any> | ServerStream<any, any> | BidiStream<any, any>
          ? K
          : never
        : never
      : never
  ]: C[K] extends BidiStream<infer A, infer R>
    ? () => grpc.ClientDuplexStream<A, R>
    : C[K] extends Unary<infer A, infer R>
      ? (request: A, options?: CallOptions) => Promise<R>
      : C[K] extends ServerStream<infer A, infer R>
        ? (request: A) => grpc.ClientReadableStream<R>
        : never;
};

export type ServiceClient<N extends ServiceName> = RpcClient<ServiceRegistry[N]['client']>;

const DEFAULT_DEADLINE_MS = 5_000;
/** GRPC_CONNECT_TIMEOUT_MS: how long a call waits for a connection to a silent peer (see CallOptions). */
const DEFAULT_CONNECT_TIMEOUT_MS = Number(processEnv.GRPC_CONNECT_TIMEOUT_MS) || 2_000;

/**
 * Channel options of every client. Calls never wait for a peer to become ready (waitForReady is
 * false on every call): a peer that is down answers UNAVAILABLE at once. Reconnection backoff is
 * capped at 5 s (gRPC's default cap is 120 s), so a peer that comes back is used again within
 * seconds.
 */
export const CHANNEL_OPTIONS: grpc.ChannelOptions = {
  'grpc.keepalive_time_ms': 30_000,
  'grpc.keepalive_timeout_ms': 10_000,
  'grpc.initial_reconnect_backoff_ms': 500,
  'grpc.max_reconnect_backoff_ms': 5_000,
  // As the servers take (grpc/server.ts): a stored media file (up to MEDIA_MAX_BYTES, 16 MiB) comes
  // back in one answer (GetMedia); grpc-js's default 4 MiB refused every file above it.
  'grpc.max_receive_message_length': 32 * 1024 * 1024,
};

/** How many streams a streamed method keeps open over an address (ClientOptions.streamLanes). */
export function streamLanesFor(address: string, env: NodeJS.ProcessEnv = processEnv): number {
  if (address.startsWith('dns:')) return Math.max(1, Math.floor(Number(env.GRPC_STREAM_LANES)) || 4);
  return address.split(',').filter((a) => a.trim()).length || 1;
}

/** The service config that spreads a channel's calls over every address its target resolves to. */
const ROUND_ROBIN = JSON.stringify({ loadBalancingConfig: [{ round_robin: {} }] });
const IPV4_PORT = /^\d{1,3}(\.\d{1,3}){3}:\d{1,5}$/;

/**
 * The channel target and options for a peer's address. One `host:port` is one backend (pick_first,
 * as before). Several, comma-separated (`127.0.0.1:50052,127.0.0.1:50152`: replicas on one
 * machine), or a `dns:` target (`dns:///messaging-headless:50052`: a headless Service's pod
 * addresses), are the replicas of one service: grpc-js round_robin keeps a connection to each and
 * spreads the calls over those that are up (a stream goes to one of them for its whole life).
 */
export function grpcTarget(address: string): { target: string; options: grpc.ChannelOptions } {
  if (address.startsWith('dns:')) return { target: address, options: { 'grpc.service_config': ROUND_ROBIN } };
  if (!address.includes(',')) return { target: address, options: {} };
  const list = address
    .split(',')
    .map((a) => a.trim())
    .filter(Boolean);
  const bad = list.find((a) => !IPV4_PORT.test(a));
  if (bad !== undefined)
    throw new Error(`gRPC address list "${address}": "${bad}" is not an IPv4 address and port (use a dns: target for host names)`);
  return { target: `ipv4:${list.join(',')}`, options: { 'grpc.service_config': ROUND_ROBIN } };
}

const { READY, IDLE, CONNECTING, TRANSIENT_FAILURE } = grpc.connectivityState;

/**
 * Resolves once the channel is READY, or in TRANSIENT_FAILURE (where a call without waitForReady
 * fails at once with the connection's error); rejects with UNAVAILABLE when it is still connecting
 * after `budgetMs`.
 */
function connected(client: grpc.Client, address: string, budgetMs: number): Promise<void> {
  // Not client.getChannel(): a service with a GetChannel method (tenants) shadows it with the RPC.
  const channel = grpc.Client.prototype.getChannel.call(client);
  const state = channel.getConnectivityState(true);
  if (state === READY || state === TRANSIENT_FAILURE) return Promise.resolve();
  const until = Date.now() + budgetMs;
  return new Promise((resolve, reject) => {
    const watch = (current: grpc.connectivityState) => {
      if (current !== IDLE && current !== CONNECTING) return resolve();
      channel.watchConnectivityState(current, until, (err) => {
        if (!err) return watch(channel.getConnectivityState(true));
        reject(
          Object.assign(new Error(`14 UNAVAILABLE: no connection to ${address} within ${budgetMs} ms`), {
            code: grpc.status.UNAVAILABLE,
            details: `No connection to ${address} within ${budgetMs} ms`,
            metadata: new grpc.Metadata(),
          }) as grpc.ServiceError,
        );
      });
    };
    watch(state);
  });
}

/** A call's metadata: the caller's trace context when the kit carries trace ids (export off; export on, the gRPC instrumentation adds it). */
function callMetadata(options?: grpc.MetadataOptions): grpc.Metadata {
  const metadata = new grpc.Metadata(options);
  if (carriesTraceIds()) injectTraceContext((name, value) => metadata.set(name, value));
  return metadata;
}

// One client (one HTTP/2 channel) per service and address for the whole process, and one stream per streamed method.
const clients = new Map<string, grpc.Client>();
const callStreams = new Map<string, Array<CallStream<unknown, unknown>>>();

export function createClient<N extends ServiceName>(name: N, address: string, defaults: ClientOptions = {}): ServiceClient<N> {
  const caller = defaults.caller ?? meshCaller();
  const key = `${caller}:${name}@${address}`;
  let raw = clients.get(key);
  if (!raw) {
    const { Client } = loadService(name);
    // Under mutual TLS the certificate is the credential; otherwise the shared-secret one (credentials.ts).
    const trust = meshTrust();
    const interceptors = trust.tls ? [grpcClientMetrics] : [grpcClientMetrics, meshClientInterceptor(caller, trust.secret)];
    const { target, options } = grpcTarget(address);
    raw = new Client(target, channelCredentials(trust.tls), { ...CHANNEL_OPTIONS, ...options, interceptors });
    clients.set(key, raw);
  }
  const client = raw;
  const wrapper: Record<string, unknown> = {};
  const { definition } = loadService(name);
  for (const method of Object.keys(definition)) {
    if (definition[method].requestStream && definition[method].responseStream) {
      wrapper[method] = () =>
        (client as unknown as Record<string, (...args: unknown[]) => unknown>)[method].call(client, callMetadata(), {});
      continue;
    }
    if (definition[method].responseStream) {
      wrapper[method] = (request: unknown) =>
        (client as unknown as Record<string, (...args: unknown[]) => unknown>)[method].call(client, request, callMetadata(), {});
      continue;
    }
    wrapper[method] = async (request: unknown, options: CallOptions = {}) => {
      const deadlineMs = options.deadlineMs ?? defaults.deadlineMs ?? DEFAULT_DEADLINE_MS;
      const deadline = Date.now() + deadlineMs;
      const connectMs = options.connectTimeoutMs ?? defaults.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
      // Past the deadline the call itself answers DEADLINE_EXCEEDED, as before.
      if (connectMs < deadlineMs) await connected(client, address, connectMs);
      return new Promise((resolve, reject) => {
        (client as unknown as Record<string, (...args: unknown[]) => unknown>)[method].call(
          client,
          request,
          callMetadata({ waitForReady: false }),
          { deadline },
          (err: grpc.ServiceError | null, res: unknown) => (err ? reject(err) : resolve(res)),
        );
      });
    };
  }
  for (const [method, when] of Object.entries(defaults.streamed ?? {})) {
    const streamMethod = `${method}Stream`;
    const unary = definition[method];
    const carrier = definition[streamMethod];
    if (!unary || unary.requestStream || unary.responseStream || !carrier?.requestStream || !carrier.responseStream) {
      throw new Error(`${name}.${method} cannot be streamed: it needs to be unary, with a bidirectional ${streamMethod} beside it`);
    }
    const streamKey = `${key}/${method}`;
    const single = wrapper[method] as (request: unknown, options?: CallOptions) => Promise<unknown>;
    let lanes = callStreams.get(streamKey);
    if (!lanes) {
      type Carrier = grpc.ClientDuplexStream<CallItem<unknown>, CallOutcome<unknown>>;
      const deadlineMs = defaults.deadlineMs ?? DEFAULT_DEADLINE_MS;
      const connectMs = defaults.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
      const start = () =>
        (client as unknown as Record<string, (...args: unknown[]) => Carrier>)[streamMethod].call(client, callMetadata(), {});
      // Each lane's stream is opened on the channel's next replica (round_robin): the calls, taken
      // by the lanes in turn, reach every replica, not the one a single stream would sit on.
      lanes = Array.from(
        { length: Math.max(1, defaults.streamLanes ?? streamLanesFor(address)) },
        () =>
          new CallStream(
            // As for a unary call: a peer without a connection fails the calls after the connect budget.
            () => (connectMs < deadlineMs ? connected(client, address, connectMs).then(start) : start()),
            { service: name, method, peer: `${name} (${address})`, deadlineMs, streamMs: defaults.streamMs, unary: single },
          ),
      );
      callStreams.set(streamKey, lanes);
    }
    const taken = lanes;
    let turn = 0;
    const streamed =
      taken.length === 1
        ? (taken[0].call as typeof single)
        : (request: unknown, options?: CallOptions) => taken[(turn = (turn + 1) % taken.length)].call(request as never, options);
    wrapper[method] =
      when === true
        ? streamed
        : (request: unknown, options?: CallOptions) => (when(request as never) ? streamed : single)(request, options);
  }
  return wrapper as ServiceClient<N>;
}

/** Ends every call stream and closes every channel this process opened (on shutdown and between tests). */
export function closeAllClients(): void {
  for (const lanes of callStreams.values()) for (const s of lanes) s.close();
  callStreams.clear();
  for (const c of clients.values()) c.close();
  clients.clear();
}
