// Unary calls carried on a long-lived bidirectional stream (protos/calls/v1/calls.proto). A grpc-js
// unary call costs its client about 0.2 ms and its server about 0.1 ms of CPU (HTTP/2 stream,
// metadata, interceptors); a message on an open stream about 0.03 ms each. The calls made once per
// message (the gateway's send, messaging's ticket lookup, the dispatcher's delivery) go this way,
// chosen per client (`streamed` in client.ts); everything else stays unary. A streamed call
// behaves as its unary call would: the same handler, the same deadline, its own trace, counted in
// the gRPC metrics under the unary method's name, and the same status when it fails, so its
// callers' error handling is unchanged.
import * as grpc from '@grpc/grpc-js';
import { context } from '@opentelemetry/api';
import { DomainError, validation } from '../errors';
import type { Logger } from '../logger';
import { observeStreamItem } from '../observability/grpc-metrics';
import { currentTraceparent, inStreamItemTrace, outsideTraces } from '../observability/trace-context';
import type { ServiceName } from './protos';
import { fromStatusFields, isServiceError, toStatusFields, type StatusFields } from './status';

/** One call on the stream (an `<Method>Item` message). */
export interface CallItem<Req> {
  id?: number;
  request?: Req | null;
  traceparent?: string;
  timeoutMs?: number;
}

/** Its answer (an `<Method>Outcome` message): the response, or the status the unary call would have failed with. */
export interface CallOutcome<Res> {
  id?: number;
  response?: Res | null;
  error?: StatusFields | null;
}

/** Which unary method the stream carries: for metrics, traces and messages. */
export interface StreamedMethod {
  service: ServiceName;
  /** The unary method's name (`GetTicket`): items are counted and traced as its calls. */
  method: string;
}

export interface CallStreamOptions<Req, Res> extends StreamedMethod {
  /** The peer, as error messages name it (`tickets`). */
  peer: string;
  /** A call's time when its caller gives none (a unary call's default). */
  deadlineMs?: number;
  /** How long one stream takes new items; under the servers' connection age (5 min) so that no stream is cut with items under way. */
  streamMs?: number;
  /**
   * The unary call itself, for a server that does not know the stream (UNIMPLEMENTED: an older
   * version, during a rolling update): the calls the refused stream carried are made again this
   * way (the server saw none of them), and so are new ones for `streamMs`; then a stream is tried again.
   */
  unary?: (request: Req, options: { deadlineMs?: number }) => Promise<Res>;
}

const DEFAULT_DEADLINE_MS = 5_000;
const STREAM_MS = 60_000;

interface Waiter<Res> {
  resolve(res: Res): void;
  reject(err: grpc.ServiceError): void;
  timer: NodeJS.Timeout;
  /** Makes the call again as a unary call (the server refused the stream: it saw none of its items). */
  again(): void;
}

type ClientStream<Req, Res> = grpc.ClientDuplexStream<CallItem<Req>, CallOutcome<Res>>;

interface OpenStream<Req, Res> {
  /** The stream once open (its opener may first wait for a connection: the kit's client). */
  ready: Promise<ClientStream<Req, Res>>;
  call?: ClientStream<Req, Res>;
  waiting: Map<number, Waiter<Res>>;
  openedAt: number;
  nextId: number;
}

/** The failure a unary call would have had, without an answer from the server. */
const failure = (code: grpc.status, message: string, errorCode = '') => fromStatusFields({ code, message, errorCode, detailsJson: '' });

/**
 * The client side: `call` writes an item on the current stream and settles with the outcome of the
 * same id, or fails DEADLINE_EXCEEDED when none came in time, or with the stream's status
 * (UNAVAILABLE, CANCELLED) when it broke or ended first (the server killed, shutting down,
 * unreachable): the errors the unary call would have failed with. A stream takes new items for
 * `streamMs`; then the next call opens another and the old one is half-closed: the server answers
 * what it took on it, then ends it. `close` ends the current stream the same way (at shutdown).
 */
export class CallStream<Req, Res> {
  private current?: OpenStream<Req, Res>;
  private readonly deadlineMs: number;
  private readonly streamMs: number;
  /** Until when calls go unary: the server refused the stream (CallStreamOptions.unary). */
  private unaryUntil = 0;

  constructor(
    private readonly open: () => ClientStream<Req, Res> | Promise<ClientStream<Req, Res>>,
    private readonly opts: CallStreamOptions<Req, Res>,
  ) {
    this.deadlineMs = opts.deadlineMs ?? DEFAULT_DEADLINE_MS;
    this.streamMs = opts.streamMs ?? STREAM_MS;
  }

  /** The streamed call, with a unary client method's signature. */
  readonly call = (request: Req, options: { deadlineMs?: number } = {}): Promise<Res> => {
    const { unary } = this.opts;
    if (unary && Date.now() < this.unaryUntil) return unary(request, options);
    const deadlineMs = options.deadlineMs ?? this.deadlineMs;
    const deadlineAt = Date.now() + deadlineMs;
    const caller = context.active();
    const stream = this.stream();
    const id = stream.nextId;
    stream.nextId = (stream.nextId + 1) % 0x1_0000_0000;
    const started = process.hrtime.bigint();
    const observe = (code: grpc.status) => observeStreamItem('client', this.opts.service, this.opts.method, code, started);
    return new Promise<Res>((resolve, reject) => {
      const timer = setTimeout(() => {
        stream.waiting.delete(id);
        observe(grpc.status.DEADLINE_EXCEEDED);
        reject(failure(grpc.status.DEADLINE_EXCEEDED, `No answer from ${this.opts.peer} within ${deadlineMs} ms`));
      }, deadlineMs);
      stream.waiting.set(id, {
        resolve: (res) => (observe(grpc.status.OK), resolve(res)),
        reject: (err) => (observe(err.code), reject(err)),
        timer,
        // Counted by the unary call itself, not as an item; in the caller's trace.
        again: () => {
          clearTimeout(timer);
          context.with(caller, () => unary!(request, { deadlineMs: Math.max(1, deadlineAt - Date.now()) })).then(resolve, reject);
        },
      });
      // A stream that broke meanwhile fails this item too, through its 'error' or 'end' below.
      const item = { id, request, traceparent: currentTraceparent(), timeoutMs: deadlineMs };
      if (stream.call) stream.call.write(item);
      else
        stream.ready.then(
          (call) => call.write(item),
          () => undefined,
        ); // not open: failed with it
    });
  };

  /** Ends the current stream (once its owner has nothing under way): the server answers what it took. */
  close(): void {
    this.current?.ready.then(
      (call) => call.end(),
      () => undefined,
    );
    this.current = undefined;
  }

  private stream(): OpenStream<Req, Res> {
    const now = Date.now();
    if (this.current && now - this.current.openedAt < this.streamMs) return this.current;
    this.close();
    let opening: ClientStream<Req, Res> | Promise<ClientStream<Req, Res>>;
    try {
      // The stream is no request's: opened outside the trace of the call that happens to open it.
      opening = outsideTraces(() => this.open());
    } catch (err) {
      opening = Promise.reject(err);
    }
    // Listened to as soon as it exists (below), so that none of its events can come before its listeners.
    const ready = opening instanceof Promise ? opening.then((call) => listen(call)) : Promise.resolve(opening);
    const opened: OpenStream<Req, Res> = { ready, waiting: new Map(), openedAt: now, nextId: 0 };
    const failAll = (err: grpc.ServiceError) => {
      if (this.current === opened) this.current = undefined;
      const refused = err.code === grpc.status.UNIMPLEMENTED && this.opts.unary !== undefined;
      if (refused) this.unaryUntil = Date.now() + this.streamMs;
      for (const waiter of opened.waiting.values()) {
        if (refused) {
          waiter.again();
          continue;
        }
        clearTimeout(waiter.timer);
        waiter.reject(err);
      }
      opened.waiting.clear();
    };
    const unavailable = (message: string) => failure(grpc.status.UNAVAILABLE, message, 'ERR_UNAVAILABLE');
    const broken = (err: unknown) => failAll(isServiceError(err) ? err : unavailable((err as Error).message));
    const listen = (call: ClientStream<Req, Res>) => {
      opened.call = call;
      call.on('data', (outcome: CallOutcome<Res>) => {
        const id = outcome.id ?? 0;
        const waiter = opened.waiting.get(id);
        if (!waiter) return; // answered after its deadline
        opened.waiting.delete(id);
        clearTimeout(waiter.timer);
        if (outcome.error) waiter.reject(fromStatusFields(outcome.error));
        else if (outcome.response) waiter.resolve(outcome.response);
        else waiter.reject(failure(grpc.status.INTERNAL, `${this.opts.peer} answered neither a response nor an error`));
      });
      call.on('error', broken);
      call.on('end', () => failAll(unavailable(`${this.opts.peer} ended the ${this.opts.method} stream before answering`)));
      return call;
    };
    if (!(opening instanceof Promise)) listen(opening);
    ready.catch(broken);
    this.current = opened;
    return opened;
  }
}

/** What a streamed call's handler knows of its call besides the request: as a unary call's. */
export interface StreamedCall {
  /** The stream's metadata: the verified mesh caller (callerOf) is the stream's. */
  metadata: grpc.Metadata;
  /** The item's deadline, from the time its caller gave it. */
  deadline: Date;
}

export interface ServeCallStreamOptions extends StreamedMethod {
  log: Logger;
  /** What the server is, in the answer to items refused while it shuts down (`channel-engines`). */
  server: string;
}

/**
 * The server side: each item is handled as its unary call would be (its own trace, from the
 * traceparent it carries) and answered with its id as soon as it is done, in any order. The stream
 * ends once the client has ended its side and every item taken is answered. While the server shuts
 * down (`draining`), items that arrive are answered UNAVAILABLE without being handled (the client
 * retries them elsewhere), and the stream ends once those under way are answered, so that no
 * outcome is lost to a rolling update.
 */
export function serveCallStream<Req, Res>(
  call: grpc.ServerDuplexStream<CallItem<Req>, CallOutcome<Res>>,
  draining: AbortSignal,
  handle: (request: Req, streamed: StreamedCall) => Promise<Res>,
  opts: ServeCallStreamOptions,
): void {
  const { service, method, log } = opts;
  let underWay = 0;
  let clientDone = false;
  const answer = (outcome: CallOutcome<Res>) => {
    if (!call.cancelled && !call.writableEnded) call.write(outcome);
  };
  const endIfDone = () => {
    if ((clientDone || draining.aborted) && underWay === 0 && !call.cancelled && !call.writableEnded) call.end();
  };
  call.on('data', (item: CallItem<Req>) => {
    const id = item.id ?? 0;
    if (draining.aborted) {
      answer({
        id,
        error: toStatusFields(new DomainError('unavailable', 'ERR_UNAVAILABLE', `${opts.server} is shutting down; nothing was attempted`)),
      });
      return;
    }
    underWay++;
    const started = process.hrtime.bigint();
    const deadline = new Date(Date.now() + (item.timeoutMs || DEFAULT_DEADLINE_MS));
    inStreamItemTrace(item.traceparent, method, async () => {
      if (!item.request) throw validation('request is required', [{ field: 'request', message: 'is required' }]);
      return handle(item.request, { metadata: call.metadata, deadline });
    })
      .then(
        (response) => {
          observeStreamItem('server', service, method, grpc.status.OK, started);
          answer({ id, response });
        },
        (err: unknown) => {
          const error = toStatusFields(err);
          if (error.code === grpc.status.INTERNAL) log.error({ err, method }, 'unhandled error in a streamed call');
          observeStreamItem('server', service, method, error.code, started);
          answer({ id, error });
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
