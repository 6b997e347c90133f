// RED metrics of every HTTP route of a Fastify app, and its /metrics endpoint.
import type { FastifyInstance } from 'fastify';
import { collectProcessMetrics, counter, histogram, METRICS_CONTENT_TYPE, metricsText } from './metrics';

const LABELS = ['method', 'route', 'status'] as const;

const requests = () =>
  counter({ name: 'http_server_requests_total', help: 'HTTP requests answered, by method, route pattern and status.', labelNames: LABELS });
const seconds = () =>
  histogram({
    name: 'http_server_request_duration_seconds',
    help: 'Time to answer an HTTP request, by method, route pattern and status.',
    labelNames: LABELS,
  });

/**
 * Counts and times every answer by its route pattern (`/v2/api/external/:apiId/sendMessageByTicket`,
 * never the raw URL: the label set stays bounded), and serves GET /metrics. Register before the
 * routes; hooks that refuse requests (authentication) should let /metrics through.
 */
export function instrumentFastify(app: FastifyInstance): void {
  collectProcessMetrics();
  app.addHook('onResponse', async (req, reply) => {
    const route = req.routeOptions.url ?? 'unmatched';
    if (route === METRICS_PATH) return;
    const labels = { method: req.method, route, status: String(reply.statusCode) };
    requests().inc(labels);
    seconds().observe(labels, reply.elapsedTime / 1000);
  });
  app.get(METRICS_PATH, { schema: { hide: true } } as object, async (_req, reply) =>
    reply.type(METRICS_CONTENT_TYPE).send(await metricsText()),
  );
}

export const METRICS_PATH = '/metrics';
