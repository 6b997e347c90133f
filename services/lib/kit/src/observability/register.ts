// Imported first by every process's entry file (`import '@convo/kit/observability/register'`),
// before anything loads http, gRPC, Fastify or mongoose: see tracing.ts.
import { startTracing } from './tracing';

startTracing();
