// Mutual TLS inside the mesh (CONVENTIONS "Inside the mesh"; production overlay). When the three
// files are configured, every gRPC server asks each caller for a certificate signed by the mesh's
// CA and refuses the handshake without one, every client presents its own and checks the server's
// name against its certificate, and the caller's identity is its certificate's common name (the
// service's name) instead of the shared-secret credential of development (credentials.ts).
//
// Kubernetes' gRPC probes speak plaintext and send no certificate, so a server under TLS also
// answers grpc.health.v1, and nothing else, in plaintext on GRPC_HEALTH_PORT.
//
// The files are read once at start: a renewed certificate takes effect at the pod's next start
// (deploy/README.md, "Mesh certificates").

import * as grpc from '@grpc/grpc-js';
import { readFileSync } from 'node:fs';
import type { PeerCertificate } from 'node:tls';
import { processEnv } from '../config';

export interface MeshTls {
  ca: Buffer;
  cert: Buffer;
  key: Buffer;
}

const FILES = ['GRPC_TLS_CA', 'GRPC_TLS_CERT', 'GRPC_TLS_KEY'] as const;
const loaded = new Map<string, MeshTls>();

/** The mesh's TLS material when GRPC_TLS_CA, GRPC_TLS_CERT and GRPC_TLS_KEY name files; else none. */
export function meshTls(env: NodeJS.ProcessEnv = processEnv): MeshTls | undefined {
  const given = FILES.filter((name) => env[name]);
  if (given.length === 0) return undefined;
  if (given.length < FILES.length) {
    throw new Error(`Mesh TLS needs all of ${FILES.join(', ')} (PEM files); only ${given.join(', ')} set`);
  }
  const key = FILES.map((name) => env[name]).join('\n');
  let tls = loaded.get(key);
  if (!tls) {
    tls = { ca: readFileSync(env.GRPC_TLS_CA!), cert: readFileSync(env.GRPC_TLS_CERT!), key: readFileSync(env.GRPC_TLS_KEY!) };
    loaded.set(key, tls);
  }
  return tls;
}

/** Server credentials: TLS requiring a client certificate of the mesh's CA, or plaintext. */
export function serverCredentials(tls: MeshTls | undefined): grpc.ServerCredentials {
  return tls
    ? grpc.ServerCredentials.createSsl(tls.ca, [{ cert_chain: tls.cert, private_key: tls.key }], true)
    : grpc.ServerCredentials.createInsecure();
}

/** Channel credentials: TLS presenting this process's certificate, or plaintext. */
export function channelCredentials(tls: MeshTls | undefined): grpc.ChannelCredentials {
  return tls ? grpc.credentials.createSsl(tls.ca, tls.key, tls.cert) : grpc.credentials.createInsecure();
}

/** The caller a verified client certificate names: its subject's common name. */
export function certificateCaller(cert: PeerCertificate | undefined): string {
  const cn = cert?.subject?.CN;
  return (Array.isArray(cn) ? cn[0] : cn) ?? '';
}

/** Where health answers in plaintext beside a TLS server (GRPC_HEALTH_PORT), if anywhere. */
export const healthPort = (env: NodeJS.ProcessEnv = processEnv): number | undefined =>
  env.GRPC_HEALTH_PORT ? Number(env.GRPC_HEALTH_PORT) : undefined;
