import type * as grpc from '@grpc/grpc-js';
import { createLogger } from '../../src/logger';
import { serveCallStream } from '../../src/grpc/call-stream';
import { closeAllClients, createClient, grpcTarget, streamLanesFor } from '../../src/grpc/client';
import { startGrpcServer, type AsyncHandlers, type GrpcServerHandle } from '../../src/grpc/server';
import type { ServiceRegistry } from '../../src/grpc/protos';
import type * as proto from '../../src/proto-types';

/**
 * A client given the addresses of two replicas of a service (real servers, each answering with its
 * own name) spreads its calls over both, and keeps answering from the one left when the other goes.
 */
const log = createLogger('test', 'silent');
const replicas: Array<{ name: string; server: GrpcServerHandle; draining: AbortController }> = [];

async function startReplica(name: string) {
  const draining = new AbortController();
  const answer = (req: proto.channelEngines.DeliverRequest__Output) => ({
    providerMessageId: `${name}:${req.reference}`,
    driver: name,
    status: 'sent',
  });
  const handlers = {
    Deliver: async (req: proto.channelEngines.DeliverRequest__Output) => answer(req),
    DeliverStream: (call: Parameters<AsyncHandlers<ServiceRegistry['channelEngines']['handlers']>['DeliverStream']>[0]) =>
      serveCallStream(call, draining.signal, async (req) => answer(req), {
        service: 'channelEngines',
        method: 'Deliver',
        server: name,
        log,
      }),
  } as unknown as AsyncHandlers<ServiceRegistry['channelEngines']['handlers']>;
  const server = await startGrpcServer('channelEngines', handlers, 0, log, '127.0.0.1');
  replicas.push({ name, server, draining });
  return server;
}

const request = (reference: string): proto.channelEngines.DeliverRequest => ({
  channel: { id: 1, tenantId: 1, type: 'engine_a' },
  to: '5511987654321',
  content: { text: 'Hi' },
  reference,
});

afterEach(async () => {
  closeAllClients();
  for (const r of replicas.splice(0)) {
    r.draining.abort();
    await r.server.shutdown(0);
  }
});

describe('a gRPC address list', () => {
  it('is one round_robin channel over every address; one address stays a plain target', () => {
    expect(grpcTarget('127.0.0.1:50052')).toEqual({ target: '127.0.0.1:50052', options: {} });
    const many = grpcTarget('127.0.0.1:50052, 127.0.0.1:50152');
    expect(many.target).toBe('ipv4:127.0.0.1:50052,127.0.0.1:50152');
    expect(JSON.parse(String(many.options['grpc.service_config']))).toEqual({ loadBalancingConfig: [{ round_robin: {} }] });
    expect(grpcTarget('dns:///messaging-headless:50052').options['grpc.service_config']).toBeDefined();
    expect(() => grpcTarget('messaging-a:50052,messaging-b:50052')).toThrow('"messaging-a:50052" is not an IPv4 address and port');
  });

  it('spreads unary calls over the replicas and answers from the one left when the other stops', async () => {
    const [a, b] = await Promise.all([startReplica('A'), startReplica('B')]);
    const client = createClient('channelEngines', `127.0.0.1:${a.port},127.0.0.1:${b.port}`, { caller: 'rr-unary' });
    const answers: string[] = [];
    for (let i = 0; i < 20; i++) answers.push((await client.Deliver(request(`u${i}`))).driver);
    expect(new Set(answers)).toEqual(new Set(['A', 'B']));

    replicas[0].draining.abort();
    await a.shutdown(0);
    // The channel learns the replica is gone at the first failed connection: calls made after that
    // go to B. A call caught in between may fail UNAVAILABLE (a caller's retry rule covers it).
    const after: string[] = [];
    for (let i = 0; i < 10; i++) {
      const res = await client.Deliver(request(`v${i}`)).catch((err: grpc.ServiceError) => ({ driver: `error ${err.code}` }));
      after.push(res.driver);
    }
    expect(after.slice(-5)).toEqual(['B', 'B', 'B', 'B', 'B']);
    expect(after.every((d) => d === 'B' || d === 'error 14')).toBe(true);
  });

  it('keeps a stream open on each replica of a list and gives them the calls in turn', async () => {
    const [a, b] = await Promise.all([startReplica('A'), startReplica('B')]);
    const address = `127.0.0.1:${a.port},127.0.0.1:${b.port}`;
    expect(streamLanesFor(address)).toBe(2);
    expect(streamLanesFor('127.0.0.1:50052')).toBe(1);
    expect(streamLanesFor('dns:///messaging-grpc:50052', {})).toBe(4);
    expect(streamLanesFor('dns:///messaging-grpc:50052', { GRPC_STREAM_LANES: '3' })).toBe(3);
    // Both replicas connected first (unary calls reach both), as a running process's channel is.
    const warm = createClient('channelEngines', address, { caller: 'rr-lanes' });
    const seen = new Set<string>();
    for (let i = 0; i < 20 && seen.size < 2; i++) seen.add((await warm.Deliver(request(`w${i}`))).driver);
    expect(seen).toEqual(new Set(['A', 'B']));
    // Streams live their full minute here: still, the calls reach both replicas.
    const client = createClient('channelEngines', address, { caller: 'rr-lanes-streamed', streamed: { Deliver: true } });
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => client.Deliver(request(`l${i}`)).then((r) => r.driver)));
    expect(answers.filter((d) => d === 'A')).toHaveLength(10);
    expect(answers.filter((d) => d === 'B')).toHaveLength(10);
  });

  it('puts each call stream on one replica, and the next stream (after streamMs, or a break) on the others', async () => {
    const [a, b] = await Promise.all([startReplica('A'), startReplica('B')]);
    const client = createClient('channelEngines', `127.0.0.1:${a.port},127.0.0.1:${b.port}`, {
      caller: 'rr-stream',
      streamed: { Deliver: true },
      streamMs: 1,
    });
    const answers: string[] = [];
    for (let i = 0; i < 20; i++) {
      answers.push((await client.Deliver(request(`s${i}`))).driver);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(new Set(answers)).toEqual(new Set(['A', 'B']));

    replicas[1].draining.abort();
    await b.shutdown(0);
    const after: string[] = [];
    for (let i = 0; i < 10; i++) {
      const res = await client.Deliver(request(`t${i}`)).catch((err: grpc.ServiceError) => ({ driver: `error ${err.code}` }));
      after.push(res.driver);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(after.slice(-5)).toEqual(['A', 'A', 'A', 'A', 'A']);
    expect(after.every((d) => d === 'A' || d === 'error 14' || d === 'error 1')).toBe(true);
  });
});
