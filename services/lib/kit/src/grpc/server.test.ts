import * as grpc from '@grpc/grpc-js';
import { notFound } from '../errors';
import { createLogger } from '../logger';
import { closeAllClients, createClient } from './client';
import { checkHealth, closeHealthClients } from './health';
import { startGrpcServer, type GrpcServerHandle } from './server';

const log = createLogger('test', 'silent');

describe('gRPC server and client', () => {
  let handle: GrpcServerHandle;

  beforeAll(async () => {
    handle = await startGrpcServer(
      'socialConfig',
      {
        GetProfile: async (req, call) => {
          // Never answers: the call ends only when the client gives up on it.
          if (req.channelId === 408 && !call.cancelled) await new Promise((resolve) => call.once('cancelled', resolve));
          if (req.channelId === 404) throw notFound('channel');
          if (req.channelId === 500) throw new Error('boom');
          return { channelId: req.channelId, tenantId: req.tenantId, iceBreakers: [{ question: 'Hi?', payload: 'HI' }] };
        },
        // The service's other method must have a handler too; these tests call GetProfile only.
        Configure: async (req) => ({ json: req.json }),
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
    const started = Date.now();
    // The handler never answers: only the deadline can end the call, and it says so.
    await expect(client().GetProfile({ tenantId: 1, channelId: 408 }, { deadlineMs: 300 })).rejects.toMatchObject({
      code: grpc.status.DEADLINE_EXCEEDED,
    });
    // Not before the deadline; how much later depends on the machine's load.
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
  });

  it('reports health NOT_SERVING until told otherwise, then SERVING', async () => {
    const address = `127.0.0.1:${handle.port}`;
    expect(await checkHealth(address)).toBe('NOT_SERVING');
    handle.setServing(true);
    expect(await checkHealth(address)).toBe('SERVING');
    handle.setServing(false);
    expect(await checkHealth(address)).toBe('NOT_SERVING');
    expect(await checkHealth('127.0.0.1:1', 200)).toBe('UNREACHABLE');
    closeHealthClients();
  });
});
