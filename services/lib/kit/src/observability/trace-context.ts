// The active trace, for what the instrumentations cannot see: the request id, log lines, and a
// trace carried across the delivery queue (a message stores the `traceparent` of the request that
// queued it; the dispatcher continues that trace when it delivers). Only @opentelemetry/api: a
// no-op without tracing.
import { context, propagation, ROOT_CONTEXT, SpanKind, trace, type Attributes, type Context } from '@opentelemetry/api';

let carryingIds = false;

/**
 * Export off, tracing.ts runs no instrumentation: the kit's HTTP servers (http-trace.ts) and gRPC
 * clients and servers carry the trace id themselves, with the functions below.
 */
export function carryTraceIds(on: boolean): void {
  carryingIds = on;
}

/** Whether the kit carries trace ids itself (tracing on, export off). */
export const carriesTraceIds = (): boolean => carryingIds;

type HeaderOf = (name: string) => string | undefined;
const headerGetter = { keys: () => ['traceparent', 'tracestate'], get: (header: HeaderOf, key: string) => header(key) };

/**
 * The context of an incoming request: a span (non-recording, export being off) in the trace its
 * `traceparent` names, or in a new trace without one.
 */
export function incomingContext(header: HeaderOf, name: string): Context {
  const parent = propagation.extract(ROOT_CONTEXT, header, headerGetter);
  return trace.setSpan(parent, tracer().startSpan(name, { kind: SpanKind.SERVER }, parent));
}

/** Runs `fn` in the given context. */
export const inContext = <T>(ctx: Context, fn: () => T): T => context.with(ctx, fn);

/** Runs `fn` outside any trace (a long-lived stream is no request's). */
export const outsideTraces = <T>(fn: () => T): T => context.with(ROOT_CONTEXT, fn);

/** Binds an event emitter's listeners to a context (an incoming request's body arrives in events). */
export const bindToContext = <E extends object>(ctx: Context, emitter: E): E => context.bind(ctx, emitter);

/** Writes the active context's `traceparent` (and `tracestate`) into an outgoing call's headers. */
export function injectTraceContext(set: (name: string, value: string) => void): void {
  propagation.inject(context.active(), set, { set: (to: typeof set, key: string, value: string) => to(key, value) });
}

/** The active trace id (32 hex digits), or undefined outside any span. */
export function currentTraceId(): string | undefined {
  const ctx = trace.getActiveSpan()?.spanContext();
  return ctx && trace.isSpanContextValid(ctx) ? ctx.traceId : undefined;
}

/** Trace and span ids of the active span, for log lines. */
export function traceFields(): { traceId?: string; spanId?: string } {
  const ctx = trace.getActiveSpan()?.spanContext();
  return ctx && trace.isSpanContextValid(ctx) ? { traceId: ctx.traceId, spanId: ctx.spanId } : {};
}

/** The W3C `traceparent` of the active context ('' outside any span), to store with queued work. */
export function currentTraceparent(): string {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent ?? '';
}

const tracer = () => trace.getTracer('@convo/kit');

/**
 * Runs `fn` in a span that continues the trace of a stored `traceparent` (a new trace when there
 * is none), ending it when `fn` settles. A consumer span (work taken from a queue) unless `kind`
 * says otherwise (a server span: an item of a stream, which carries its own trace context).
 */
export function inStoredTrace<T>(
  traceparent: string | undefined,
  name: string,
  attributes: Attributes,
  fn: () => Promise<T>,
  kind: SpanKind = SpanKind.CONSUMER,
): Promise<T> {
  const parent = traceparent ? propagation.extract(ROOT_CONTEXT, { traceparent }) : ROOT_CONTEXT;
  return tracer().startActiveSpan(name, { kind, attributes }, parent, async (span) => {
    try {
      return await fn();
    } catch (err) {
      span.recordException(err as Error);
      throw err;
    } finally {
      span.end();
    }
  });
}

/** Runs `fn` in a server span continuing the `traceparent` an item of a stream carries (deliveries). */
export const inStreamItemTrace = <T>(traceparent: string | undefined, name: string, fn: () => Promise<T>): Promise<T> =>
  inStoredTrace(traceparent, name, {}, fn, SpanKind.SERVER);
