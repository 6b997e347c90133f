import multipart from '@fastify/multipart';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { createLogger, currentTraceId, instrumentFastify, traceIdServerFactory } from '@convo/kit';
import { randomBytes } from 'node:crypto';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { Authenticator } from './auth';
import { installBodyBudget } from './body-budget';
import { createClients, type Clients } from './clients';
import { browserPages } from './browser-pages';
import type { GatewayConfig } from './config';
import { installErrorHandler } from './errors';
import { sendAnswersAsReturned } from './plain-answers';
import { installUnreadBodyDrain } from './unread-body';
import { boundedValidatorCompiler } from './validation/compiler';
import { installBoundedJsonParser } from './validation/json-parser';
import { markParsedMultipart, readFile, refuseFileOutsideMediaRoutes } from './validation/multipart';
import { mountGraphql } from './graphql';
import { SWAGGER_OPTIONS } from './openapi/document';
import { externalApi } from './routes/external';
import { mediaRoutes } from './routes/media.routes';
import { paymentWebhookRoutes } from './routes/payment-webhooks.routes';
import { inboundRoutes } from './routes/inbound.routes';
import { tenantRoutes } from './routes/tenant.routes';
import { whatsappRoutes } from './routes/whatsapp.routes';
import { webchatRoutes } from './routes/webchat.routes';
import { installRateLimits } from './rate-limits';
import type { UploadedFile } from './schemas/message.schemas';

export interface Gateway {
  app: FastifyInstance;
  clients: Clients;
  auth: Authenticator;
  /** /readyz answers 200 once `ready` is set: after the warm-up (main.ts, warmup.ts). */
  readiness: { ready: boolean };
}

export async function buildGateway(config: GatewayConfig, opts: { logger?: boolean } = {}): Promise<Gateway> {
  const app = Fastify({
    // One log shape for the whole mesh: the kit's logger (severity, ISO time, service, traceId).
    ...(opts.logger === false ? { logger: false } : { loggerInstance: createLogger('gateway') as FastifyBaseLogger }),
    // The request id is the trace id (tracing runs even when no exporter is configured): it is
    // the X-Request-Id of the answer, on every log line of the request, and in every span.
    genReqId: () => currentTraceId() ?? randomBytes(16).toString('hex'),
    requestIdHeader: false,
    // Fastify's own two lines per request are replaced by the one access line below.
    logController: new LogController({ requestIdLogLabel: 'requestId', disableRequestLogging: true }),
    bodyLimit: config.bodyLimitBytes,
    // Export off, the kit carries the trace id (the request id above) itself (kit/observability/http-trace.ts).
    serverFactory: traceIdServerFactory(),
  });
  app.setValidatorCompiler(boundedValidatorCompiler());
  // Response schemas document the answers; they do not rewrite them (plain-answers.ts).
  sendAnswersAsReturned(app);
  installBoundedJsonParser(app);
  const clients = createClients(config);
  const auth = new Authenticator(clients, config.superAdminToken, config.tokenCacheMs);
  const readiness = { ready: false };
  installErrorHandler(app);
  // An answer sent before its body is in never breaks the connection under the client (unread-body.ts).
  installUnreadBodyDrain(app);
  // Before any route: every route's body is admitted under the one budget.
  installBodyBudget(app, config.bodyBudgetBytes);
  // RED per route and GET /metrics (kit/observability); hidden from the OpenAPI document.
  instrumentFastify(app);
  app.addHook('onRequest', async (req, reply) => {
    reply.header('x-request-id', req.id);
  });
  // One access line per request (probes and scrapes excepted).
  app.addHook('onResponse', async (req, reply) => {
    const route = req.routeOptions.url;
    if (route === '/healthz' || route === '/readyz' || route === '/metrics') return;
    const line = {
      method: req.method,
      route: route ?? req.url.split('?')[0].slice(0, 200),
      status: reply.statusCode,
      ms: Math.round(reply.elapsedTime),
      tenant: req.principal?.tenantId,
    };
    // The warm-up's own requests (before ready) only at debug: they are no one's traffic.
    if (!readiness.ready) req.log.debug(line, 'request');
    else if (reply.statusCode >= 500) req.log.warn(line, 'request');
    else req.log.info(line, 'request');
  });
  // Form fields land in the body as values, so one schema validates JSON and multipart alike.
  await app.register(multipart, {
    attachFieldsToBody: 'keyValues',
    limits: { fileSize: config.mediaMaxBytes, files: 1, fields: 20 },
    onFile: async function (part) {
      refuseFileOutsideMediaRoutes(this, part);
      const upload: UploadedFile = {
        data: await readFile(part.file, this.headers['content-length'], config.mediaMaxBytes),
        mimeType: part.mimetype,
        fileName: part.filename,
        truncated: part.file.truncated,
      };
      (part as unknown as { value: UploadedFile }).value = upload;
    },
  });
  markParsedMultipart(app);
  await app.register(swagger, SWAGGER_OPTIONS);
  await app.register(swaggerUi, { routePrefix: '/docs' });

  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  // Ready = this gateway can serve, once warmed up (warmup.ts). A service that is down answers its
  // own routes 503 with Retry-After (kit's status table); it must not take the gateway's other
  // routes out of service.
  app.get('/readyz', { schema: { hide: true } }, async (_req, reply) =>
    readiness.ready ? { status: 'ready' } : reply.code(503).send({ status: 'warming up' }),
  );

  const rateLimits = await installRateLimits(app, config.rateLimits);
  await app.register(tenantRoutes, { clients, auth });
  await app.register(whatsappRoutes, { clients, auth });
  await app.register(paymentWebhookRoutes, { clients });
  await app.register(inboundRoutes, { clients, auth, metaVerifyToken: config.metaVerifyToken, metaAppSecret: config.metaAppSecret });
  await app.register(externalApi, {
    prefix: '/v2/api/external/:apiId',
    clients,
    auth,
    mediaMaxBytes: config.mediaMaxBytes,
    mediaBodyLimit: config.mediaBodyLimitBytes,
    rateLimits,
  });
  await app.register(mediaRoutes, { clients, secret: config.mediaUrlSecret });
  await app.register(webchatRoutes, { clients, auth, secret: config.mediaUrlSecret, rateLimits });
  await app.register(browserPages);
  const stopGraphql = await mountGraphql(app, config, auth, clients, rateLimits);
  app.addHook('onClose', async () => stopGraphql());
  return { app, clients, auth, readiness };
}
