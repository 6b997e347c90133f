// Trace ids on the kit's HTTP servers (the gateway, the subgraphs) with export off: the request's
// `traceparent` is continued (or a trace begun) around Fastify's handling of it, which is what the
// HTTP instrumentation did for them, without the span attributes and hooks nobody reads (with the
// gRPC side, about 0.4 ms of the mesh's 9 ms of CPU per send in `npm run bench`, alternating runs).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { bindToContext, carriesTraceIds, incomingContext, inContext } from './trace-context';

/** Probes and scrapes are not requests anyone traces. */
const UNTRACED = /^\/(healthz|readyz|metrics)(\?|$)/;

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** The server options Fastify applies to a server it makes itself, applied here to ours. */
interface ServerOptions {
  keepAliveTimeout?: number;
  requestTimeout?: number;
  connectionTimeout?: number;
  maxRequestsPerSocket?: number;
}

const headerOf = (req: IncomingMessage) => (name: string) => {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
};

/**
 * Fastify's `serverFactory` when the kit carries trace ids itself, undefined otherwise (export on:
 * the HTTP instrumentation does it; tracing off: nothing to carry).
 */
export function traceIdServerFactory(): ((handler: Handler, opts: ServerOptions) => Server) | undefined {
  if (!carriesTraceIds()) return undefined;
  return (handler, opts) => {
    const server = createServer((req, res) => {
      if (UNTRACED.test(req.url ?? '')) return handler(req, res);
      const ctx = incomingContext(headerOf(req), `${req.method ?? 'HTTP'}`);
      // The body arrives in events emitted outside this call: its listeners run in the request's context.
      bindToContext(ctx, req);
      bindToContext(ctx, res);
      inContext(ctx, () => handler(req, res));
    });
    if (opts.keepAliveTimeout !== undefined) server.keepAliveTimeout = opts.keepAliveTimeout;
    if (opts.requestTimeout !== undefined) server.requestTimeout = opts.requestTimeout;
    if (opts.connectionTimeout !== undefined) server.setTimeout(opts.connectionTimeout);
    if (opts.maxRequestsPerSocket) server.maxRequestsPerSocket = opts.maxRequestsPerSocket;
    return server;
  };
}
