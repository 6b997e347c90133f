import * as grpc from '@grpc/grpc-js';
import { closeAllClients, createClient } from '../src/grpc/client';
import { callerOf, grpcHost, meshClientInterceptor, meshSecret } from '../src/grpc/credentials';
import { checkHealth, closeHealthClients } from '../src/grpc/health';
import { loadService } from '../src/grpc/protos';
import { startGrpcServer, type GrpcServerHandle } from '../src/grpc/server';
import { createLogger } from '../src/logger';

/** A raw client of the service, optionally with an interceptor: what an attacker on the network has. */
function rawCall(address: string, interceptors: grpc.Interceptor[] = []): Promise<grpc.ServiceError | null> {
  const { Client } = loadService('socialConfig');
  const client = new Client(address, grpc.credentials.createInsecure(), { interceptors }) as unknown as Record<
    string,
    (...args: unknown[]) => unknown
  > &
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

describe('mesh credentials', () => {
  let handle: GrpcServerHandle;
  let address: string;
  const callers: string[] = [];

  beforeAll(async () => {
    handle = await startGrpcServer(
      'socialConfig',
      {
        GetProfile: async (req, call) => {
          callers.push(callerOf(call));
          return { channelId: req.channelId, tenantId: req.tenantId, iceBreakers: [] };
        },
        Configure: async (req) => ({ json: req.json }),
      },
      0,
      createLogger('test', 'silent'),
    );
    handle.setServing(true);
    address = `127.0.0.1:${handle.port}`;
  });

  afterAll(async () => {
    closeAllClients();
    closeHealthClients();
    await handle.shutdown(100);
  });

  it('refuses a call without a credential, or with one made with another secret: UNAUTHENTICATED', async () => {
    expect((await rawCall(address))?.code).toBe(grpc.status.UNAUTHENTICATED);
    const forged = meshClientInterceptor('gateway', 'another-installation-secret');
    expect((await rawCall(address, [forged]))?.code).toBe(grpc.status.UNAUTHENTICATED);
    expect(callers).toEqual([]);
  });

  it("accepts the mesh's own clients and tells the handler who called", async () => {
    await expect(
      createClient('socialConfig', address, { caller: 'gateway' }).GetProfile({ tenantId: 1, channelId: 7 }),
    ).resolves.toMatchObject({ channelId: 7 });
    expect(await rawCall(address, [meshClientInterceptor('messaging', meshSecret())])).toBeNull();
    expect(callers).toEqual(['gateway', 'messaging']);
  });

  it('keeps health checks open (Kubernetes gRPC probes send no metadata)', async () => {
    expect(await checkHealth(address)).toBe('SERVING');
  });

  it('listens on loopback unless GRPC_HOST says otherwise', () => {
    expect(grpcHost({})).toBe('127.0.0.1');
    expect(grpcHost({ GRPC_HOST: '0.0.0.0' })).toBe('0.0.0.0');
  });

  it('refuses to run without a mesh secret', () => {
    expect(() => meshSecret({})).toThrow(/MESH_SECRET/);
    expect(() => meshSecret({ MESH_SECRET: 'short' })).toThrow(/MESH_SECRET/);
  });
});
