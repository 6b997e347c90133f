// RED metrics of every gRPC method, both sides, as gRPC interceptors (the series names of
// go-grpc-prometheus, which existing dashboards know). The kit's server and client factory
// register them; nothing else needs to.
import * as grpc from '@grpc/grpc-js';
import { serviceFullName, type ServiceName } from '../grpc/protos';
import { counter, histogram, secondsSince } from './metrics';

const LABELS = ['grpc_service', 'grpc_method', 'grpc_code'] as const;

const serverHandled = () =>
  counter({
    name: 'grpc_server_handled_total',
    help: 'gRPC calls completed by this server, by method and status code.',
    labelNames: LABELS,
  });
const serverSeconds = () =>
  histogram({
    name: 'grpc_server_handling_seconds',
    help: 'Time this server took to answer a gRPC call, by method and status code.',
    labelNames: LABELS,
  });
const clientHandled = () =>
  counter({
    name: 'grpc_client_handled_total',
    help: 'gRPC calls this process made that completed, by method and status code.',
    labelNames: LABELS,
  });
const clientSeconds = () =>
  histogram({
    name: 'grpc_client_handling_seconds',
    help: 'Time a gRPC call this process made took, by method and status code.',
    labelNames: LABELS,
  });

/** `/convo.tickets.v1.TicketsService/GetTicket` → service and method. */
function splitPath(path: string): { grpc_service: string; grpc_method: string } {
  const [, service = 'unknown', method = 'unknown'] = path.split('/');
  return { grpc_service: service, grpc_method: method };
}

export const grpcServerMetrics: grpc.ServerInterceptor = (method, call) => {
  const started = process.hrtime.bigint();
  const labels = splitPath(method.path);
  return new grpc.ServerInterceptingCall(call, {
    sendStatus(status, next) {
      const withCode = { ...labels, grpc_code: grpc.status[status.code] ?? String(status.code) };
      serverHandled().inc(withCode);
      serverSeconds().observe(withCode, secondsSince(started));
      next(status);
    },
  });
};

export const grpcClientMetrics: grpc.Interceptor = (options, nextCall) => {
  const started = process.hrtime.bigint();
  const labels = splitPath(options.method_definition.path);
  return new grpc.InterceptingCall(nextCall(options), {
    start(metadata, listener, next) {
      next(metadata, {
        onReceiveStatus(status, nextStatus) {
          const withCode = { ...labels, grpc_code: grpc.status[status.code] ?? String(status.code) };
          clientHandled().inc(withCode);
          clientSeconds().observe(withCode, secondsSince(started));
          nextStatus(status);
        },
      });
    },
  });
};

/**
 * One item of a stream that stands for a unary call (a delivery on DeliverStream stands for a
 * Deliver), counted and timed in the same series as that call, so that dashboards read each
 * delivery as before whichever way it went. The stream itself is counted as a call when it ends.
 */
export function observeStreamItem(
  side: 'server' | 'client',
  service: ServiceName,
  method: string,
  code: grpc.status,
  started: bigint,
): void {
  const labels = { grpc_service: serviceFullName(service), grpc_method: method, grpc_code: grpc.status[code] ?? String(code) };
  (side === 'server' ? serverHandled() : clientHandled()).inc(labels);
  (side === 'server' ? serverSeconds() : clientSeconds()).observe(labels, secondsSince(started));
}
