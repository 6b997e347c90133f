import * as grpc from '@grpc/grpc-js';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { closeAllClients, createClient } from '../../src/grpc/client';
import { callerOf, meshClientInterceptor, meshTrust } from '../../src/grpc/credentials';
import { checkHealth, closeHealthClients } from '../../src/grpc/health';
import { loadService } from '../../src/grpc/protos';
import { startGrpcServer, type GrpcServerHandle } from '../../src/grpc/server';
import { channelCredentials, meshTls, type MeshTls } from '../../src/grpc/tls';
import { createLogger } from '../../src/logger';

/**
 * Mutual TLS as the production overlay runs it: a CA, and per service one certificate (CN = the
 * service's name) used both to serve and to call. The certificates are made here with openssl.
 */
const dir = mkdtempSync(join(tmpdir(), 'mesh-tls-'));
const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });

function authority(name: string): void {
  openssl(
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-days',
    '2',
    '-subj',
    `/CN=${name}`,
    '-keyout',
    `${name}.key`,
    '-out',
    `${name}.crt`,
  );
}

/** A certificate for `cn` signed by `ca`, valid for loopback, for serving and calling. */
function issue(cn: string, ca: string): Record<'GRPC_TLS_CA' | 'GRPC_TLS_CERT' | 'GRPC_TLS_KEY', string> {
  const ext = join(dir, `${cn}.ext`);
  writeFileSync(ext, `subjectAltName=DNS:${cn},DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth,clientAuth\n`);
  openssl(
    'req',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-subj',
    `/CN=${cn}`,
    '-keyout',
    `${cn}.key`,
    '-out',
    `${cn}.csr`,
  );
  openssl(
    'x509',
    '-req',
    '-in',
    `${cn}.csr`,
    '-CA',
    `${ca}.crt`,
    '-CAkey',
    `${ca}.key`,
    '-CAcreateserial',
    '-days',
    '2',
    '-extfile',
    ext,
    '-out',
    `${cn}.crt`,
  );
  return { GRPC_TLS_CA: join(dir, `${ca}.crt`), GRPC_TLS_CERT: join(dir, `${cn}.crt`), GRPC_TLS_KEY: join(dir, `${cn}.key`) };
}

/** One GetProfile call with the given channel credentials and interceptors: its error, or null. */
function call(
  address: string,
  credentials: grpc.ChannelCredentials,
  interceptors: grpc.Interceptor[] = [],
): Promise<grpc.ServiceError | null> {
  const { Client } = loadService('socialConfig');
  const client = new Client(address, credentials, { interceptors }) as unknown as Record<string, (...args: unknown[]) => unknown> &
    grpc.Client;
  return new Promise((resolve) =>
    client.GetProfile(
      { tenantId: 1, channelId: 1 },
      new grpc.Metadata(),
      { deadline: Date.now() + 5_000 },
      (err: grpc.ServiceError | null) => {
        client.close();
        resolve(err);
      },
    ),
  );
}

describe('mesh over mutual TLS', () => {
  let handle: GrpcServerHandle;
  let address: string;
  let gatewayTls: MeshTls;
  let intruder: MeshTls;
  let gatewayEnv: NodeJS.ProcessEnv;
  const callers: string[] = [];
  const unset = () => {
    for (const name of ['GRPC_TLS_CA', 'GRPC_TLS_CERT', 'GRPC_TLS_KEY']) delete process.env[name];
  };

  beforeAll(async () => {
    authority('mesh-ca');
    authority('other-ca');
    const server = issue('social-config', 'mesh-ca');
    gatewayEnv = issue('gateway', 'mesh-ca');
    gatewayTls = meshTls(gatewayEnv)!;
    intruder = meshTls(issue('intruder', 'other-ca'))!;
    handle = await startGrpcServer(
      'socialConfig',
      {
        GetProfile: async (req, c) => {
          callers.push(callerOf(c));
          return { channelId: req.channelId, tenantId: req.tenantId, iceBreakers: [] };
        },
        Configure: async (req) => ({ json: req.json }),
      },
      0,
      createLogger('test', 'silent'),
      '127.0.0.1',
      meshTrust({ ...server, MESH_SECRET: '' }),
      0,
    );
    handle.setServing(true);
    address = `127.0.0.1:${handle.port}`;
    // This process calls as the gateway, as a gateway pod with its certificate mounted would.
    Object.assign(process.env, gatewayEnv);
  });

  afterAll(async () => {
    unset();
    closeAllClients();
    closeHealthClients();
    await handle.shutdown(100);
    rmSync(dir, { recursive: true, force: true });
  });

  it("accepts the mesh's clients and names the caller by its certificate, whatever a header claims", async () => {
    await expect(createClient('socialConfig', address).GetProfile({ tenantId: 1, channelId: 7 })).resolves.toMatchObject({ channelId: 7 });
    // A certified caller that claims to be another service in the development credential's headers.
    expect(await call(address, channelCredentials(gatewayTls), [meshClientInterceptor('tenants', 'x'.repeat(32))])).toBeNull();
    expect(callers).toEqual(['gateway', 'gateway']);
  });

  it('refuses plaintext, TLS without a client certificate, and a certificate of another CA', async () => {
    expect((await call(address, grpc.credentials.createInsecure()))?.code).toBe(grpc.status.UNAVAILABLE);
    expect((await call(address, grpc.credentials.createSsl(gatewayTls.ca)))?.code).toBe(grpc.status.UNAVAILABLE);
    expect((await call(address, grpc.credentials.createSsl(gatewayTls.ca, intruder.key, intruder.cert)))?.code).toBe(
      grpc.status.UNAVAILABLE,
    );
    expect(callers).toEqual(['gateway', 'gateway']);
  });

  it("refuses a server whose certificate is not of the mesh's CA", async () => {
    const rogue = await startGrpcServer(
      'socialConfig',
      { GetProfile: async () => ({ channelId: 1, tenantId: 1, iceBreakers: [] }), Configure: async (req) => ({ json: req.json }) },
      0,
      createLogger('test', 'silent'),
      '127.0.0.1',
      { tls: intruder },
    );
    try {
      expect((await call(`127.0.0.1:${rogue.port}`, channelCredentials(gatewayTls)))?.code).toBe(grpc.status.UNAVAILABLE);
    } finally {
      await rogue.shutdown(100);
    }
  });

  it('answers health in plaintext on the health port only, and health over TLS on the main port', async () => {
    expect(handle.healthPort).toBeGreaterThan(0);
    const plain = `127.0.0.1:${handle.healthPort}`;
    expect(await checkHealth(address)).toBe('SERVING');
    unset(); // a plaintext client, as the kubelet's probe
    try {
      closeHealthClients();
      expect(await checkHealth(plain)).toBe('SERVING');
      expect(await checkHealth(plain, 1_000, 'liveness')).toBe('SERVING');
      // The plaintext port serves nothing else.
      expect((await call(plain, grpc.credentials.createInsecure()))?.code).toBe(grpc.status.UNIMPLEMENTED);
    } finally {
      Object.assign(process.env, gatewayEnv);
      closeHealthClients();
    }
  });

  it('needs all three files or none', () => {
    expect(meshTls({})).toBeUndefined();
    expect(() => meshTls({ GRPC_TLS_CA: '/x' })).toThrow(/GRPC_TLS_CERT, GRPC_TLS_KEY/);
    expect(() => meshTrust({})).toThrow(/MESH_SECRET/);
  });
});
