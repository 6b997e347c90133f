import * as grpc from '@grpc/grpc-js';
import { notFound } from '../../src/errors';
import { createLogger } from '../../src/logger';
import { closeAllClients, createClient } from '../../src/grpc/client';
import { checkHealth, closeHealthClients } from '../../src/grpc/health';
import { LIVENESS, startGrpcServer, type GrpcServerHandle } from '../../src/grpc/server';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { closedPort } from './closed-port';

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
    const err = await client()
      .GetProfile({ tenantId: 1, channelId: 404 })
      .catch((e: grpc.ServiceError) => e);
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

  // No elapsed-time bounds (a loaded machine breaks them): every timer is set far beyond the test's
  // own timeout, so an UNAVAILABLE answer can only come from what the client decided at once.
  it('fails a call to a peer that refuses connections with UNAVAILABLE, without waiting for a timer', async () => {
    const down = createClient('socialConfig', `127.0.0.1:${await closedPort()}`, { deadlineMs: 60_000, connectTimeoutMs: 60_000 });
    for (let i = 0; i < 3; i++) {
      await expect(down.GetProfile({ tenantId: 1, channelId: 1 })).rejects.toMatchObject({ code: grpc.status.UNAVAILABLE });
    }
    // tenants has a GetChannel method, whose getChannel alias shadows grpc.Client's own.
    const tenants = createClient('tenants', `127.0.0.1:${await closedPort()}`, { deadlineMs: 60_000, connectTimeoutMs: 60_000 });
    await expect(tenants.GetChannel({ id: 1 } as never)).rejects.toMatchObject({ code: grpc.status.UNAVAILABLE });
  });

  it('gives up on a peer that accepts a connection but never answers after the connect budget, not the deadline', async () => {
    const sockets: Socket[] = [];
    const silent = createServer((socket) => void sockets.push(socket)); // holds every socket, never speaks HTTP/2
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const port = (silent.address() as AddressInfo).port;
      const client = createClient('socialConfig', `127.0.0.1:${port}`, { deadlineMs: 60_000, connectTimeoutMs: 300 });
      await expect(client.GetProfile({ tenantId: 1, channelId: 1 })).rejects.toMatchObject({
        code: grpc.status.UNAVAILABLE,
        details: `No connection to 127.0.0.1:${port} within 300 ms`,
      });
    } finally {
      closeAllClients();
      sockets.forEach((socket) => socket.destroy());
      silent.close();
    }
  });

  it('reports health NOT_SERVING until told otherwise, then SERVING; liveness is the process alone', async () => {
    const address = `127.0.0.1:${handle.port}`;
    expect(await checkHealth(address)).toBe('NOT_SERVING');
    expect(await checkHealth(address, 1_000, LIVENESS)).toBe('SERVING');
    handle.setServing(true);
    expect(await checkHealth(address)).toBe('SERVING');
    handle.setServing(false);
    expect(await checkHealth(address)).toBe('NOT_SERVING');
    expect(await checkHealth(address, 1_000, LIVENESS)).toBe('SERVING');
    expect(await checkHealth('127.0.0.1:1', 200)).toBe('UNREACHABLE');
    closeHealthClients();
  });
});
