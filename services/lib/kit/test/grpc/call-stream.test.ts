import * as grpc from '@grpc/grpc-js';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { closedPort } from './closed-port';
import { providerFailed } from '../../src/errors';
import { createLogger } from '../../src/logger';
import { serveCallStream } from '../../src/grpc/call-stream';
import { closeAllClients, createClient } from '../../src/grpc/client';
import { loadService } from '../../src/grpc/protos';
import { grpcToHttp, toGrpcError } from '../../src/grpc/status';
import { startGrpcServer, type AsyncHandlers, type GrpcServerHandle } from '../../src/grpc/server';
import type { ServiceRegistry } from '../../src/grpc/protos';
import type * as proto from '../../src/proto-types';

/**
 * A client's `streamed` methods (grpc/call-stream.ts) against a real server whose unary Deliver and
 * DeliverStream answer differently, so that each test sees which way a call went.
 */
const log = createLogger('test', 'silent');
let server: GrpcServerHandle;
let draining: AbortController;

const answer = (driver: string, req: proto.channelEngines.DeliverRequest__Output) => {
  if (req.reference === 'refuse')
    throw providerFailed('engine_a refused the message (HTTP 400): bad', [{ provider: 'engine_a', status: 400, transient: false }]);
  return { providerMessageId: `P-${req.reference}`, driver, status: 'sent' };
};

beforeAll(async () => {
  const handlers = {
    Deliver: async (req: proto.channelEngines.DeliverRequest__Output) => answer('unary', req),
    DeliverStream: (call: Parameters<AsyncHandlers<ServiceRegistry['channelEngines']['handlers']>['DeliverStream']>[0]) =>
      serveCallStream(call, draining.signal, async (req) => answer('stream', req), {
        service: 'channelEngines',
        method: 'Deliver',
        server: 'test',
        log,
      }),
  } as unknown as AsyncHandlers<ServiceRegistry['channelEngines']['handlers']>;
  draining = new AbortController();
  server = await startGrpcServer('channelEngines', handlers, 0, log, '127.0.0.1');
});

afterEach(() => closeAllClients());
afterAll(() => server.shutdown(0));

const request = (reference: string): proto.channelEngines.DeliverRequest => ({
  channel: { id: 1, tenantId: 1, type: 'engine_a' },
  to: '5511987654321',
  content: { text: 'Hi' },
  reference,
});

it('carries a streamed method on its stream, and the others (or the requests its predicate leaves) as unary calls', async () => {
  const all = createClient('channelEngines', `127.0.0.1:${server.port}`, { streamed: { Deliver: true } });
  await expect(Promise.all(['a', 'b', 'c'].map((r) => all.Deliver(request(r))))).resolves.toEqual(
    ['a', 'b', 'c'].map((r) => ({ providerMessageId: `P-${r}`, driver: 'stream', status: 'sent' })),
  );
  const some = createClient('channelEngines', `127.0.0.1:${server.port}`, {
    caller: 'other',
    streamed: { Deliver: (req: proto.channelEngines.DeliverRequest) => req.reference !== 'big' },
  });
  await expect(some.Deliver(request('small'))).resolves.toMatchObject({ driver: 'stream' });
  await expect(some.Deliver(request('big'))).resolves.toMatchObject({ driver: 'unary' });
  const none = createClient('channelEngines', `127.0.0.1:${server.port}`, { caller: 'unary' });
  await expect(none.Deliver(request('d'))).resolves.toMatchObject({ driver: 'unary' });
});

it("fails a streamed call with the unary call's status, code and details", async () => {
  const client = createClient('channelEngines', `127.0.0.1:${server.port}`, { streamed: { Deliver: true } });
  const unary = createClient('channelEngines', `127.0.0.1:${server.port}`, { caller: 'unary' });
  const [streamed, single] = await Promise.all([
    client.Deliver(request('refuse')).catch((e: grpc.ServiceError) => e),
    unary.Deliver(request('refuse')).catch((e: grpc.ServiceError) => e),
  ]);
  expect(streamed).toMatchObject({ code: single.code, details: single.details });
  // What the gateway answers for it: the same status, error code and details.
  expect(grpcToHttp(streamed)).toEqual(grpcToHttp(single));
  expect(grpcToHttp(streamed)).toMatchObject({
    status: 502,
    body: { error: 'ERR_PROVIDER_FAILED', details: [{ provider: 'engine_a', status: 400, transient: false }] },
  });
});

it('refuses to stream a method without a bidirectional <Method>Stream beside it', () => {
  expect(() => createClient('channelEngines', `127.0.0.1:${server.port}`, { caller: 'bad', streamed: { ListDrivers: true } })).toThrow(
    'channelEngines.ListDrivers cannot be streamed: it needs to be unary, with a bidirectional ListDriversStream beside it',
  );
});

// During a rolling update a client may be newer than its server: a server without the stream
// (an older kit: a bare grpc-js server with Deliver alone, which answers UNIMPLEMENTED for the
// rest) gets the unary calls instead.
it('makes the calls as unary ones when the server does not know the stream, the refused ones included', async () => {
  const older = new grpc.Server();
  older.addService(loadService('channelEngines').definition, {
    Deliver: (call: grpc.ServerUnaryCall<proto.channelEngines.DeliverRequest__Output, unknown>, callback: grpc.sendUnaryData<unknown>) => {
      try {
        callback(null, answer('unary', call.request));
      } catch (err) {
        callback(toGrpcError(err));
      }
    },
  });
  const port = await new Promise<number>((resolve, reject) =>
    older.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
  );
  try {
    const client = createClient('channelEngines', `127.0.0.1:${port}`, { streamed: { Deliver: true } });
    // The first calls go on a stream, which the server refuses: they are made again, unary.
    await expect(Promise.all(['a', 'b'].map((r) => client.Deliver(request(r))))).resolves.toEqual(
      ['a', 'b'].map((r) => ({ providerMessageId: `P-${r}`, driver: 'unary', status: 'sent' })),
    );
    await expect(client.Deliver(request('c'))).resolves.toMatchObject({ driver: 'unary' });
    // A refusal of the call itself is the call's answer, as before.
    await expect(client.Deliver(request('refuse'))).rejects.toMatchObject({
      code: grpc.status.UNAVAILABLE,
      details: 'engine_a refused the message (HTTP 400): bad',
    });
  } finally {
    closeAllClients();
    older.forceShutdown();
  }
});

// A kit server serves every `<Method>Stream` beside a unary method with that method's handler.
it('serves a stream with the unary handler when the service gives none for it', async () => {
  // A grpc-js call object (sendMetadata) only for a unary call; an item gets its metadata and deadline.
  const way = (call: object) => ('sendMetadata' in call ? 'unary call' : 'stream item');
  const derived = await startGrpcServer(
    'channelEngines',
    {
      Deliver: async (req: proto.channelEngines.DeliverRequest__Output, call: grpc.ServerUnaryCall<unknown, unknown>) => {
        if (!call.getDeadline()) throw new Error('a call without its deadline');
        return answer(way(call), req);
      },
    } as unknown as AsyncHandlers<ServiceRegistry['channelEngines']['handlers']>,
    0,
    log,
    '127.0.0.1',
  );
  try {
    const client = createClient('channelEngines', `127.0.0.1:${derived.port}`, { streamed: { Deliver: true } });
    const unary = createClient('channelEngines', `127.0.0.1:${derived.port}`, { caller: 'unary' });
    await expect(client.Deliver(request('s'))).resolves.toMatchObject({ driver: 'stream item' });
    await expect(unary.Deliver(request('u'))).resolves.toMatchObject({ driver: 'unary call' });
    const [streamed, single] = await Promise.all([
      client.Deliver(request('refuse')).catch((e: grpc.ServiceError) => e),
      unary.Deliver(request('refuse')).catch((e: grpc.ServiceError) => e),
    ]);
    expect(grpcToHttp(streamed)).toEqual(grpcToHttp(single));
  } finally {
    closeAllClients();
    await derived.shutdown(0);
  }
});

// The stream is opened at once here (no connect budget under the deadline): its failure reaches
// the calls it carries. Timers far beyond the test's own timeout, as in server.test.ts.
it('fails streamed calls to a peer that refuses connections with UNAVAILABLE, without waiting for a timer', async () => {
  const client = createClient('channelEngines', `127.0.0.1:${await closedPort()}`, {
    deadlineMs: 60_000,
    connectTimeoutMs: 60_000,
    streamed: { Deliver: true },
  });
  for (let i = 0; i < 3; i++) {
    await expect(client.Deliver(request(`x${i}`))).rejects.toMatchObject({ code: grpc.status.UNAVAILABLE });
  }
});

// As for unary calls (server.test.ts): a peer that accepts a connection and never speaks fails the
// call UNAVAILABLE after the connect budget, not after the call's deadline.
it('gives up on a silent peer after the connect budget, and tries a new stream for the next call', async () => {
  const sockets: Socket[] = [];
  const silent = createServer((socket) => void sockets.push(socket));
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = silent.address() as AddressInfo;
    const client = createClient('channelEngines', `127.0.0.1:${port}`, {
      deadlineMs: 60_000,
      connectTimeoutMs: 300,
      streamed: { Deliver: true },
    });
    const expected = { code: grpc.status.UNAVAILABLE, details: `No connection to 127.0.0.1:${port} within 300 ms` };
    await expect(client.Deliver(request('x'))).rejects.toMatchObject(expected);
    await expect(client.Deliver(request('y'))).rejects.toMatchObject(expected);
  } finally {
    closeAllClients();
    sockets.forEach((socket) => socket.destroy());
    silent.close();
  }
});
