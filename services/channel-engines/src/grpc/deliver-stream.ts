import { DomainError, grpc, inStreamItemTrace, type Logger, observeStreamItem, type proto, toStatusFields, validation } from '@convo/kit';
import type { EnginesService } from '../domain/engines.service';

type Call = grpc.ServerDuplexStream<proto.channelEngines.DeliverItem__Output, proto.channelEngines.DeliverOutcome>;

/**
 * DeliverStream: the dispatcher's deliveries on one stream. Each item is delivered as a unary
 * Deliver would be (its own trace, from the traceparent it carries) and answered with its id as
 * soon as its provider call ends. The stream ends once the client has ended its side and every item
 * taken is answered; while the server shuts down, items that arrive are answered UNAVAILABLE
 * without an attempt (the dispatcher retries them elsewhere), and the stream ends once those under
 * way are answered, so that no provider call's outcome is lost to a rolling update.
 */
export function serveDeliveries(svc: EnginesService, call: Call, draining: AbortSignal, log: Logger): void {
  let underWay = 0;
  let clientDone = false;
  const answer = (outcome: proto.channelEngines.DeliverOutcome) => {
    if (!call.cancelled && !call.writableEnded) call.write(outcome);
  };
  const endIfDone = () => {
    if ((clientDone || draining.aborted) && underWay === 0 && !call.cancelled && !call.writableEnded) call.end();
  };
  call.on('data', (item: proto.channelEngines.DeliverItem__Output) => {
    if (draining.aborted) {
      answer({ id: item.id, error: toStatusFields(new DomainError('unavailable', 'ERR_UNAVAILABLE', 'channel-engines is shutting down; nothing was attempted')) });
      return;
    }
    underWay++;
    const started = process.hrtime.bigint();
    inStreamItemTrace(item.traceparent, 'Deliver', async () => {
      if (!item.request) throw validation('request is required', [{ field: 'request', message: 'is required' }]);
      return svc.deliver(item.request);
    })
      .then(
        (response) => {
          // Counted as a Deliver call (grpc_server_handled_total{grpc_method="Deliver"}).
          observeStreamItem('server', 'channelEngines', 'Deliver', grpc.status.OK, started);
          answer({ id: item.id, response });
        },
        (err: unknown) => {
          const error = toStatusFields(err);
          if (error.code === grpc.status.INTERNAL) log.error({ err }, 'unhandled error in a streamed delivery');
          observeStreamItem('server', 'channelEngines', 'Deliver', error.code, started);
          answer({ id: item.id, error });
        },
      )
      .finally(() => {
        underWay--;
        endIfDone();
      });
  });
  call.on('end', () => {
    clientDone = true;
    endIfDone();
  });
  // A client that went away (cancelled, its process killed): the calls under way end on their own.
  call.on('error', () => undefined);
  draining.addEventListener('abort', endIfDone);
  const forget = () => draining.removeEventListener('abort', endIfDone);
  call.once('finish', forget);
  call.once('cancelled', forget);
}
