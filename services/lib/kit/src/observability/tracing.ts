// OpenTelemetry tracing of a process: the gRPC (client and server), HTTP (node:http), undici
// (fetch), Fastify and mongoose instrumentations, W3C trace context (`traceparent`) in and out.
// Loaded by `register.ts`, which every process imports first (instrumentations patch a module when
// it is first required, so nothing else may load before them). This file imports only
// OpenTelemetry packages.
//
// Spans are always made, so every request has a trace id (the gateway's X-Request-Id, each log
// line's traceId) and every outgoing call carries `traceparent`. They are recorded and exported
// only when an exporter is configured by the standard variables: OTEL_EXPORTER_OTLP_ENDPOINT or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT set (OTLP over HTTP, JSON), or OTEL_TRACES_EXPORTER=otlp|console.
// OTEL_TRACES_EXPORTER=none or OTEL_SDK_DISABLED=true turn export off; OTEL_SERVICE_NAME names the
// process (default: derived from the entry file); OTEL_TRACES_SAMPLER(_ARG), OTEL_BSP_* and
// OTEL_EXPORTER_OTLP_HEADERS/TIMEOUT are read by the SDK as usual.
import { processEnv } from '../config';
import FastifyOtelInstrumentation from '@fastify/otel';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { GrpcInstrumentation } from '@opentelemetry/instrumentation-grpc';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { MongooseInstrumentation } from '@opentelemetry/instrumentation-mongoose';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
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
  if (kind === 'otlp' || env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return new OTLPTraceExporter();
  return undefined;
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
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      new HttpInstrumentation({
        // Probes and scrapes are not requests anyone traces.
        ignoreIncomingRequestHook: (req) => /^\/(healthz|readyz|metrics)(\?|$)/.test(req.url ?? ''),
      }),
      new UndiciInstrumentation(),
      new GrpcInstrumentation({ ignoreGrpcMethods: ['Check', 'Watch'] }),
      new FastifyOtelInstrumentation({ registerOnInitialization: true }),
      new MongooseInstrumentation(),
    ],
  });
  return !!exporter;
}

/** Exports what is still buffered (on shutdown); a no-op when tracing is off. */
export async function flushTraces(): Promise<void> {
  await provider?.forceFlush().catch(() => undefined);
}
