import { currentTraceparent, fromStatusFields, grpc, isServiceError, observeStreamItem, outsideTraces, type proto } from '@convo/kit';

type Item = proto.channelEngines.DeliverItem;
type Outcome = proto.channelEngines.DeliverOutcome__Output;
type Stream = grpc.ClientDuplexStream<Item, Outcome>;

/** What the dispatcher needs of channel-engines: one delivery, answered or failed as a unary Deliver call is. */
export interface Deliverer {
  Deliver(request: proto.channelEngines.DeliverRequest, options?: { deadlineMs?: number }): Promise<proto.channelEngines.DeliverResponse__Output>;
}

interface Waiter {
  resolve(res: proto.channelEngines.DeliverResponse__Output): void;
  reject(err: grpc.ServiceError): void;
  timer: NodeJS.Timeout;
}

interface OpenStream {
  call: Stream;
  waiting: Map<number, Waiter>;
  openedAt: number;
  nextId: number;
}

/** How long one stream takes new items: under the servers' connection age (5 min), so a stream is never cut with items under way. */
const STREAM_MS = 60_000;
const DEFAULT_DEADLINE_MS = 5_000;

/** The failure a unary call would have had, without an answer from the engine. */
const failure = (code: grpc.status, message: string, errorCode = '') => fromStatusFields({ code, message, errorCode, detailsJson: '' });

/**
 * Deliveries over channel-engines' DeliverStream: each Deliver writes an item on the current stream
 * and settles with the outcome of the same id, or fails DEADLINE_EXCEEDED when none came in time,
 * or with the stream's status (UNAVAILABLE, CANCELLED) when it broke or ended first (an engine
 * killed, shutting down, or unreachable): the errors a unary Deliver call would have failed with,
 * so the dispatcher classifies them alike (all transient: retried). A stream takes new items for
 * STREAM_MS; then the next item opens another and the old one is half-closed: the engine answers
 * what it took on it, then ends it.
 */
export class DeliveryStream implements Deliverer {
  private current?: OpenStream;

  constructor(
    private readonly open: () => Stream,
    private readonly streamMs = STREAM_MS,
  ) {}

  Deliver(request: proto.channelEngines.DeliverRequest, options: { deadlineMs?: number } = {}): Promise<proto.channelEngines.DeliverResponse__Output> {
    const deadlineMs = options.deadlineMs ?? DEFAULT_DEADLINE_MS;
    const stream = this.stream();
    const id = stream.nextId;
    stream.nextId = (stream.nextId + 1) % 0x1_0000_0000;
    const started = process.hrtime.bigint();
    // Each delivery is counted as a Deliver call (grpc_client_handled_total{grpc_method="Deliver"}).
    const observe = (code: grpc.status) => observeStreamItem('client', 'channelEngines', 'Deliver', code, started);
    return new Promise((resolve, reject) => {
      const settle = {
        resolve: (res: proto.channelEngines.DeliverResponse__Output) => (observe(grpc.status.OK), resolve(res)),
        reject: (err: grpc.ServiceError) => (observe(err.code), reject(err)),
      };
      const timer = setTimeout(() => {
        stream.waiting.delete(id);
        settle.reject(failure(grpc.status.DEADLINE_EXCEEDED, `No answer from channel-engines within ${deadlineMs} ms`));
      }, deadlineMs);
      stream.waiting.set(id, { ...settle, timer });
      // A stream that broke meanwhile fails this item too, through its 'error' or 'end' below.
      stream.call.write({ id, request, traceparent: currentTraceparent() });
    });
  }

  /** Ends the stream (once the dispatcher has nothing under way): the server answers what it took. */
  close(): void {
    this.current?.call.end();
    this.current = undefined;
  }

  private stream(): OpenStream {
    const now = Date.now();
    if (this.current && now - this.current.openedAt < this.streamMs) return this.current;
    this.current?.call.end();
    // The stream is no request's: opened outside the trace of the delivery that happens to open it.
    const call = outsideTraces(() => this.open());
    const opened: OpenStream = { call, waiting: new Map(), openedAt: now, nextId: 0 };
    const failAll = (err: grpc.ServiceError) => {
      if (this.current === opened) this.current = undefined;
      for (const waiter of opened.waiting.values()) {
        clearTimeout(waiter.timer);
        waiter.reject(err);
      }
      opened.waiting.clear();
    };
    call.on('data', (outcome: Outcome) => {
      const waiter = opened.waiting.get(outcome.id);
      if (!waiter) return; // answered after its deadline
      opened.waiting.delete(outcome.id);
      clearTimeout(waiter.timer);
      if (outcome.error) waiter.reject(fromStatusFields(outcome.error));
      else if (outcome.response) waiter.resolve(outcome.response);
      else waiter.reject(failure(grpc.status.INTERNAL, 'channel-engines answered neither a response nor an error'));
    });
    const unavailable = (message: string) => failure(grpc.status.UNAVAILABLE, message, 'ERR_UNAVAILABLE');
    call.on('error', (err: unknown) => failAll(isServiceError(err) ? err : unavailable((err as Error).message)));
    call.on('end', () => failAll(unavailable('channel-engines ended the delivery stream before answering')));
    this.current = opened;
    return opened;
  }
}
