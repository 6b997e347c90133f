import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

/**
 * The kit's index is what the gateway and the messaging workers load: it must not pull in the
 * service-only parts (mongoose, Apollo's subgraph, type-graphql), which cost every such process a
 * second of CPU at start-up. Those are imported by path (`@convo/kit/service`, …). Runs the
 * built index (turbo builds before it tests) in a fresh Node.
 */
it("loads none of the service-only packages through the kit's index", () => {
  const index = join(__dirname, '..', 'dist', 'index.js');
  const script = `require(${JSON.stringify(index)});
    const heavy = Object.keys(require.cache).map((f) => /node_modules\\/((?:@[^/]+\\/)?[^/]+)\\//.exec(f)?.[1])
      .filter((p) => ['mongoose', 'type-graphql', '@apollo/subgraph', '@apollo/server'].includes(p));
    console.log(JSON.stringify([...new Set(heavy)]));`;
  expect(JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' }))).toEqual([]);
});

/**
 * Tracing off by default (no OTEL_* exporter): every process still loads the SDK (the kit carries
 * request ids and `traceparent` across hops with it), but no instrumentation nor the exporter, which
 * only export uses: they cost each process of the mesh about a tenth of its start-up CPU, and the
 * HTTP and gRPC instrumentations a share of every request's. With an exporter all of it is loaded
 * and registered (the end-to-end tracing test follows such a trace through the mesh).
 */
describe('what tracing loads', () => {
  const exportOnly = [
    '@fastify/otel',
    '@opentelemetry/exporter-trace-otlp-http',
    '@opentelemetry/instrumentation',
    '@opentelemetry/instrumentation-grpc',
    '@opentelemetry/instrumentation-http',
    '@opentelemetry/instrumentation-mongoose',
    '@opentelemetry/instrumentation-undici',
  ];
  const loaded = (env: Record<string, string>) => {
    const register = join(__dirname, '..', 'dist', 'observability', 'register.js');
    const script = `require(${JSON.stringify(register)});
      const pkgs = Object.keys(require.cache).map((f) => /node_modules\\/((?:@[^/]+\\/)?[^/]+)\\//.exec(f)?.[1]);
      console.log(JSON.stringify(${JSON.stringify(exportOnly)}.filter((p) => pkgs.includes(p))));`;
    const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('OTEL_')));
    return JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8', env: { ...clean, ...env } }));
  };

  it('loads none of the export-only packages without an exporter', () => {
    expect(loaded({})).toEqual([]);
  });

  it('loads all of them when spans are exported', () => {
    expect(loaded({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' })).toEqual(exportOnly);
  });
});
