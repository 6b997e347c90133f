// The active trace, for what the instrumentations cannot see: the request id, log lines, and a
// trace carried across the delivery queue (a message stores the `traceparent` of the request that
// queued it; the dispatcher continues that trace when it delivers). Only @opentelemetry/api: a
// no-op without tracing.
import { context, propagation, ROOT_CONTEXT, SpanKind, trace, type Attributes } from '@opentelemetry/api';

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
 * is none), ending it when `fn` settles.
 */
export function inStoredTrace<T>(traceparent: string | undefined, name: string, attributes: Attributes, fn: () => Promise<T>): Promise<T> {
  const parent = traceparent ? propagation.extract(ROOT_CONTEXT, { traceparent }) : ROOT_CONTEXT;
  return tracer().startActiveSpan(name, { kind: SpanKind.CONSUMER, attributes }, parent, async (span) => {
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
