// Mesh trust (CONVENTIONS "Inside the mesh"): services trust no caller by address. Every internal
// gRPC call carries its caller's credential, and every server refuses a call without a valid one
// (UNAUTHENTICATED) before any handler runs. Two kinds of credential:
// - mutual TLS when GRPC_TLS_CA/CERT/KEY are set (the production overlay, tls.ts): the caller is
//   the common name of the client certificate the handshake verified;
// - otherwise the caller's name with an HMAC-SHA256 of it under the installation's shared secret
//   `MESH_SECRET` (the dev supervisor generates one per run and hands it to every process).
// The grpc.health.v1 service stays open: Kubernetes' gRPC probes cannot send metadata.

import { processEnv } from '../config';
import * as grpc from '@grpc/grpc-js';
import { createHmac } from 'node:crypto';
import { safeEqual } from '../secrets';
import { certificateCaller, meshTls, type MeshTls } from './tls';

export const MESH_CALLER_HEADER = 'x-mesh-caller';
export const MESH_AUTH_HEADER = 'x-mesh-auth';
/** Set by the server interceptor once the credential is verified; handlers read it with callerOf. */
export const MESH_VERIFIED_CALLER = 'x-mesh-verified-caller';
const HEALTH_PREFIX = '/grpc.health.v1.Health/';
export const MIN_MESH_SECRET_LENGTH = 16;

let currentCaller = processEnv.MESH_CALLER || 'unknown';

/** The name this process's calls carry (the service's name; `gateway` for the gateway). */
export function setMeshCaller(name: string): void {
  currentCaller = name;
}

export function meshCaller(): string {
  return currentCaller;
}

/** The installation's mesh secret; a process without one cannot call or serve anything. */
export function meshSecret(env: NodeJS.ProcessEnv = processEnv): string {
  const secret = env.MESH_SECRET ?? '';
  if (secret.length < MIN_MESH_SECRET_LENGTH) {
    throw new Error(`MESH_SECRET must be set (at least ${MIN_MESH_SECRET_LENGTH} characters): every internal gRPC call carries it`);
  }
  return secret;
}

/** How this process proves itself and checks its callers: mutual TLS, or the shared secret. */
export type MeshTrust = { tls: MeshTls; secret?: undefined } | { secret: string; tls?: undefined };

export function meshTrust(env: NodeJS.ProcessEnv = processEnv): MeshTrust {
  const tls = meshTls(env);
  return tls ? { tls } : { secret: meshSecret(env) };
}

const proof = (secret: string, caller: string) =>
  createHmac('sha256', secret).update(`convo mesh caller v1\n${caller}`).digest('base64url');

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

/**
 * Refuses every call (but health checks) without a valid credential: UNAUTHENTICATED. Under TLS
 * the caller is the verified certificate's name and caller headers are ignored; without TLS the
 * call must carry the shared-secret credential (a server given no secret accepts none).
 */
export function meshServerInterceptor(secret?: string): grpc.ServerInterceptor {
  return (method, call) => {
    if (method.path.startsWith(HEALTH_PREFIX)) return new grpc.ServerInterceptingCall(call);
    return new grpc.ServerInterceptingCall(call, {
      start(next) {
        next({
          onReceiveMetadata(metadata, mdNext) {
            const certificate = call.getAuthContext()?.sslPeerCertificate;
            const claimed = String(metadata.get(MESH_CALLER_HEADER)[0] ?? '');
            const got = String(metadata.get(MESH_AUTH_HEADER)[0] ?? '');
            const caller = certificate
              ? certificateCaller(certificate)
              : secret && claimed && safeEqual(got, proof(secret, claimed))
                ? claimed
                : '';
            metadata.remove(MESH_VERIFIED_CALLER);
            if (!caller) {
              call.sendStatus({
                code: grpc.status.UNAUTHENTICATED,
                details: 'Missing or invalid mesh credential',
                metadata: new grpc.Metadata(),
              });
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
export const grpcHost = (env: NodeJS.ProcessEnv = processEnv): string => env.GRPC_HOST || '127.0.0.1';
