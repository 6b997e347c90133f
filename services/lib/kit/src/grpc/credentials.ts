// Mesh trust (CONVENTIONS "Inside the mesh"): services trust no caller by address. Every internal
// gRPC call carries its caller's credential, and every server refuses a call without a valid one
// (UNAUTHENTICATED) before any handler runs. The credential is the caller's name with an
// HMAC-SHA256 of it under the installation's shared secret `MESH_SECRET` (the dev supervisor
// generates one per run and hands it to every process; Kubernetes reads it from the Secret).
// The grpc.health.v1 service stays open: Kubernetes' gRPC probes cannot send metadata.

import * as grpc from '@grpc/grpc-js';
import { createHmac, timingSafeEqual } from 'node:crypto';

export const MESH_CALLER_HEADER = 'x-mesh-caller';
export const MESH_AUTH_HEADER = 'x-mesh-auth';
/** Set by the server interceptor once the credential is verified; handlers read it with callerOf. */
export const MESH_VERIFIED_CALLER = 'x-mesh-verified-caller';
const HEALTH_PREFIX = '/grpc.health.v1.Health/';
export const MIN_MESH_SECRET_LENGTH = 16;

let currentCaller = process.env.MESH_CALLER || 'unknown';

/** The name this process's calls carry (the service's name; `gateway` for the gateway). */
export function setMeshCaller(name: string): void {
  currentCaller = name;
}

export function meshCaller(): string {
  return currentCaller;
}

/** The installation's mesh secret; a process without one cannot call or serve anything. */
export function meshSecret(env: NodeJS.ProcessEnv = process.env): string {
  const secret = env.MESH_SECRET ?? '';
  if (secret.length < MIN_MESH_SECRET_LENGTH) {
    throw new Error(`MESH_SECRET must be set (at least ${MIN_MESH_SECRET_LENGTH} characters): every internal gRPC call carries it`);
  }
  return secret;
}

const proof = (secret: string, caller: string) => createHmac('sha256', secret).update(`convo mesh caller v1\n${caller}`).digest('base64url');

/** Adds the caller's credential to every call of a client. */
export function meshClientInterceptor(caller = currentCaller, secret = meshSecret()): grpc.Interceptor {
  const token = proof(secret, caller);
  return (options, nextCall) =>
    new grpc.InterceptingCall(nextCall(options), {
      start(metadata, listener, next) {
        metadata.set(MESH_CALLER_HEADER, caller);
        metadata.set(MESH_AUTH_HEADER, token);
        next(metadata, listener);
      },
    });
}

/** Refuses every call (but health checks) without a valid credential: UNAUTHENTICATED. */
export function meshServerInterceptor(secret = meshSecret()): grpc.ServerInterceptor {
  return (method, call) => {
    if (method.path.startsWith(HEALTH_PREFIX)) return new grpc.ServerInterceptingCall(call);
    return new grpc.ServerInterceptingCall(call, {
      start(next) {
        next({
          onReceiveMetadata(metadata, mdNext) {
            const caller = String(metadata.get(MESH_CALLER_HEADER)[0] ?? '');
            const got = Buffer.from(String(metadata.get(MESH_AUTH_HEADER)[0] ?? ''));
            const want = Buffer.from(proof(secret, caller));
            metadata.remove(MESH_VERIFIED_CALLER);
            if (!caller || got.length !== want.length || !timingSafeEqual(got, want)) {
              call.sendStatus({ code: grpc.status.UNAUTHENTICATED, details: 'Missing or invalid mesh credential', metadata: new grpc.Metadata() });
              return;
            }
            metadata.set(MESH_VERIFIED_CALLER, caller);
            mdNext(metadata);
          },
        });
      },
    });
  };
}

/** The verified caller of a call (empty outside the mesh interceptor). */
export const callerOf = (call: { metadata: grpc.Metadata }): string => String(call.metadata.get(MESH_VERIFIED_CALLER)[0] ?? '');

/** Where a service's gRPC server listens: loopback unless `GRPC_HOST` says otherwise (Kubernetes: 0.0.0.0). */
export const grpcHost = (env: NodeJS.ProcessEnv = process.env): string => env.GRPC_HOST || '127.0.0.1';
