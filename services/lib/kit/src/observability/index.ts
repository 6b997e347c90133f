export * from './metrics';
export * from './grpc-metrics';
export * from './http-metrics';
export * from './db-metrics';
export * from './trace-context';
export * from './http-trace';
export { flushTraces } from './tracing';
