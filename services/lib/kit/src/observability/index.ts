export * from './metrics';
export * from './grpc-metrics';
export * from './http-metrics';
export * from './db-metrics';
