// What the services' tests share: real services on the embedded database, fake providers on
// loopback, and the reading of gRPC errors. Used by tests only (a devDependency).
export * from './commands';
export * from './service';
export * from './fake-provider';
export * from './fake-payment-gateways';
export * from './grpc-errors';
export * from './loopback';
export * from './tcp-proxy';
export * from './webhook-receiver';
