import type { Mesh } from './types';

/** What `npm start` prints once the mesh is up: where everything listens. */
export function readyBanner(m: Mesh, dataDir: string): string {
  return [
    '',
    // From this process's start: its own loading counts too.
    `Mesh ready in ${(performance.now() / 1000).toFixed(1)} s (database: ${m.database.kind}, data kept in ${dataDir}; npm run reset wipes it)`,
    `  REST facade:       ${m.gatewayUrl}   (external API under /v2/api/external/{apiId}/...)`,
    `  GraphQL:           ${m.graphqlUrl}`,
    `  OpenAPI / Swagger: ${m.gatewayUrl}/docs`,
    `  Metrics:           ${m.gatewayUrl}/metrics (and /metrics on every process's HTTP port)`,
    `  Super-admin token: ${m.superAdminToken}`,
    ...Object.entries(m.replicas)
      .filter(([, names]) => names.length > 1)
      .map(
        ([d, names]) =>
          `  ${d}: ${names.length} replicas (${names.map((n) => m.endpoints.get(n)?.grpc ?? m.endpoints.get(n)?.http).join(', ')})`,
      ),
    'Ctrl-C stops everything.',
    '',
  ].join('\n');
}
