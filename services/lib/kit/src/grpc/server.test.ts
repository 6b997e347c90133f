import * as grpc from '@grpc/grpc-js';
import { HealthClient } from 'grpc-health-check/build/src/generated/grpc/health/v1/Health';
import { notFound } from '../errors';
import { createLogger } from '../logger';
import { closeAllClients, createClient } from './client';
import { startGrpcServer, type GrpcServerHandle } from './server';

const log = createLogger('test', 'silent');

describe('gRPC server and client', () => {
  let handle: GrpcServerHandle;

  beforeAll(async () => {
    handle = await startGrpcServer(
      'socialConfig',
      {
        GetProfile: async (req) => {
          if (req.channelId === 404) throw notFound('channel');
          if (req.channelId === 500) throw new Error('boom');
          return { channelId: req.channelId, tenantId: req.tenantId, iceBreakers: [{ question: 'Hi?', payload: 'HI' }] };
        },
      },
      0,
      log,
      '127.0.0.1',
    );
  });

  afterAll(async () => {
    closeAllClients();
    await handle.shutdown(1000);
  });

  const client = () => createClient('socialConfig', `127.0.0.1:${handle.port}`);

  it('round-trips a unary call with proto defaults filled in', async () => {
    const res = await client().GetProfile({ tenantId: 7, channelId: 3 });
    expect(res).toMatchObject({ channelId: 3, tenantId: 7, greetings: [], iceBreakers: [{ question: 'Hi?', payload: 'HI' }] });
  });

  it('maps a domain error to its status and code metadata', async () => {
    await expect(client().GetProfile({ tenantId: 1, channelId: 404 })).rejects.toMatchObject({
      code: grpc.status.NOT_FOUND,
      details: 'Channel not found',
    });
    const err = await client().GetProfile({ tenantId: 1, channelId: 404 }).catch((e: grpc.ServiceError) => e);
    expect((err as grpc.ServiceError).metadata.get('err-code')).toEqual(['ERR_CHANNEL_NOT_FOUND']);
  });

  it('answers INTERNAL without leaking the message of an unexpected error', async () => {
    await expect(client().GetProfile({ tenantId: 1, channelId: 500 })).rejects.toMatchObject({
      code: grpc.status.INTERNAL,
      details: 'Internal error',
    });
  });

  it('applies a deadline to every call', async () => {
    const unreachable = createClient('socialConfig', '127.0.0.1:1');
    const started = Date.now();
    await expect(unreachable.GetProfile({ tenantId: 1, channelId: 1 }, { deadlineMs: 300 })).rejects.toMatchObject({
      code: expect.any(Number),
    });
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('reports health NOT_SERVING until told otherwise, then SERVING', async () => {
    const { loadSync } = await import('@grpc/proto-loader');
    const protoPath = require.resolve('grpc-health-check/proto/health/v1/health.proto');
    const def = grpc.loadPackageDefinition(loadSync(protoPath, { enums: String })) as any;
    const health: HealthClient = new def.grpc.health.v1.Health(`127.0.0.1:${handle.port}`, grpc.credentials.createInsecure());
    const check = () =>
      new Promise<string>((resolve, reject) =>
        health.check({ service: '' }, (err, res) => (err ? reject(err) : resolve(res!.status as string))),
      );
    expect(await check()).toBe('NOT_SERVING');
    handle.setServing(true);
    expect(await check()).toBe('SERVING');
    handle.setServing(false);
    expect(await check()).toBe('NOT_SERVING');
    health.close();
  });
});
