// OpenTelemetry tracing of a process: the gRPC (client and server), HTTP (node:http), undici
// (fetch), Fastify and mongoose instrumentations, W3C trace context (`traceparent`) in and out.
// Loaded by `register.ts`, which every process imports first (instrumentations patch a module when
// it is first required, so nothing else may load before them). This file imports only
// OpenTelemetry packages.
//
// Spans are always made at the HTTP server and on every gRPC hop, so every request has a trace id
// (the gateway's X-Request-Id, each log line's traceId) that every process of the mesh sees. The
// instrumentations run, spans are recorded and exported, and outgoing calls carry `traceparent`,
// only when an exporter is configured by the standard variables: OTEL_EXPORTER_OTLP_ENDPOINT or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT set (OTLP over HTTP, JSON), or OTEL_TRACES_EXPORTER=otlp|console.
// OTEL_TRACES_EXPORTER=none or OTEL_SDK_DISABLED=true turn export off; OTEL_SERVICE_NAME names the
// process (default: derived from the entry file); OTEL_TRACES_SAMPLER(_ARG), OTEL_BSP_* and
// OTEL_EXPORTER_OTLP_HEADERS/TIMEOUT are read by the SDK as usual.
//
// What only export needs (the OTLP exporter and every instrumentation) is required only when
// exporting: loading it cost every process of the mesh about a tenth of its start-up CPU
// (`npm run bench:start`, docs/benchmarks.md). Export off, the kit carries the trace ids itself (trace-context.ts,
// http-trace.ts, grpc/client.ts and grpc/server.ts).
import { processEnv } from '../config';
import { carryTraceIds } from './trace-context';
import type { FastifyOtelInstrumentation } from '@fastify/otel';
import type { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import type { Instrumentation, registerInstrumentations } from '@opentelemetry/instrumentation';
import type { GrpcInstrumentation } from '@opentelemetry/instrumentation-grpc';
import type { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import type { MongooseInstrumentation } from '@opentelemetry/instrumentation-mongoose';
import type { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  BatchSpanProcessor,
  ConsoleSpanExporter,
  NodeTracerProvider,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-node';

/** `gateway/dist/main.js` → gateway, `services/tickets/dist/main.js` → tickets, `…/messaging/dist/relay/main.js` → messaging-relay. */
export function processName(entry = require.main?.filename ?? ''): string {
  const m = /(?:^|[/\\])(?:gateway|services[/\\]([^/\\]+))[/\\](?:dist|src)[/\\](?:(relay|dispatcher)[/\\])?main\.[jt]s$/.exec(entry);
  if (!m) return 'convo';
  const base = m[1] ?? 'gateway';
  return m[2] ? `${base}-${m[2]}` : base;
}

function exporterFrom(env: NodeJS.ProcessEnv): SpanExporter | undefined {
  const kind = (env.OTEL_TRACES_EXPORTER ?? '').trim().toLowerCase();
  if (kind === 'none') return undefined;
  if (kind === 'console') return new ConsoleSpanExporter();
  if (kind === 'otlp' || env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only when exporting (see the top)
    const otlp = require('@opentelemetry/exporter-trace-otlp-http') as { OTLPTraceExporter: typeof OTLPTraceExporter };
    return new otlp.OTLPTraceExporter();
  }
  return undefined;
}

/**
 * What is instrumented when spans are exported: every layer, so a trace shows each hop, database
 * operation, Fastify hook and outbound call. Export off, nothing: the kit's HTTP servers and gRPC
 * calls carry the trace id themselves (the request's id and the context of everything it does,
 * `traceparent` across every hop so that each process's log lines of a request carry its id). The
 * HTTP and gRPC instrumentations cost about a twentieth of the mesh's CPU per send for the same
 * ids (`npm run bench` with and without them, docs/operations.md "Traces"); spans of database operations, outbound
 * fetches and Fastify hooks, about a quarter.
 */
function exportedInstrumentations(): Instrumentation[] {
  /* eslint-disable @typescript-eslint/no-require-imports -- loaded only when exporting (see the top) */
  const { HttpInstrumentation: Http } = require('@opentelemetry/instrumentation-http') as {
    HttpInstrumentation: typeof HttpInstrumentation;
  };
  const { GrpcInstrumentation: Grpc } = require('@opentelemetry/instrumentation-grpc') as {
    GrpcInstrumentation: typeof GrpcInstrumentation;
  };
  const { UndiciInstrumentation: Undici } = require('@opentelemetry/instrumentation-undici') as {
    UndiciInstrumentation: typeof UndiciInstrumentation;
  };
  const { FastifyOtelInstrumentation: FastifyOtel } = require('@fastify/otel') as {
    FastifyOtelInstrumentation: typeof FastifyOtelInstrumentation;
  };
  const { MongooseInstrumentation: Mongoose } = require('@opentelemetry/instrumentation-mongoose') as {
    MongooseInstrumentation: typeof MongooseInstrumentation;
  };
  /* eslint-enable @typescript-eslint/no-require-imports */
  // Probes and scrapes are not requests anyone traces.
  const http = new Http({ ignoreIncomingRequestHook: (req) => /^\/(healthz|readyz|metrics)(\?|$)/.test(req.url ?? '') });
  return [
    http,
    new Undici(),
    new Grpc({ ignoreGrpcMethods: ['Check', 'Watch'] }),
    new FastifyOtel({ registerOnInitialization: true }),
    new Mongoose(),
  ];
}

let provider: NodeTracerProvider | undefined;

/** Sets tracing up once per process; answers whether spans are exported. */
export function startTracing(env: NodeJS.ProcessEnv = processEnv): boolean {
  if (provider || env.OTEL_SDK_DISABLED === 'true') return false;
  const exporter = exporterFrom(env);
  const spanProcessors: SpanProcessor[] = exporter ? [new BatchSpanProcessor(exporter)] : [];
  provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': env.OTEL_SERVICE_NAME || processName() }),
    spanProcessors,
    // Export off: spans carry ids and context only (non-recording), nothing is kept.
    ...(exporter ? {} : { sampler: new AlwaysOffSampler() }),
  });
  provider.register();
  if (exporter) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only when exporting (see the top)
    const { registerInstrumentations: register } = require('@opentelemetry/instrumentation') as {
      registerInstrumentations: typeof registerInstrumentations;
    };
    register({ tracerProvider: provider, instrumentations: exportedInstrumentations() });
  }
  carryTraceIds(!exporter);
  return !!exporter;
}

/** Exports what is still buffered (on shutdown); a no-op when tracing is off. */
export async function flushTraces(): Promise<void> {
  await provider?.forceFlush().catch(() => undefined);
}
