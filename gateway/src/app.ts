import multipart from '@fastify/multipart';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyInstance } from 'fastify';
import { Authenticator } from './auth';
import { createClients, type Clients } from './clients';
import type { GatewayConfig } from './config';
import { AJV_OPTIONS, installErrorHandler } from './errors';
import { mountGraphql } from './graphql';
import { externalApi } from './routes/external';
import { mediaRoutes } from './routes/media.routes';
import { paymentWebhookRoutes } from './routes/payment-webhooks.routes';
import { inboundRoutes } from './routes/inbound.routes';
import { tenantRoutes } from './routes/tenant.routes';
import { whatsappRoutes } from './routes/whatsapp.routes';
import { webchatRoutes } from './routes/webchat.routes';
import type { UploadedFile } from './schemas/message.schemas';

export interface Gateway {
  app: FastifyInstance;
  clients: Clients;
  auth: Authenticator;
}

export async function buildGateway(config: GatewayConfig, opts: { logger?: boolean | object } = {}): Promise<Gateway> {
  const app = Fastify({
    logger: opts.logger ?? { level: process.env.LOG_LEVEL ?? 'info', messageKey: 'message' },
    bodyLimit: config.bodyLimitBytes,
    // Two log lines per request cost more than the request on the hot path; failures and slow
    // requests are logged by the onResponse hook below instead.
    disableRequestLogging: true,
    ajv: AJV_OPTIONS,
  });
  const clients = createClients(config);
  const auth = new Authenticator(clients, config.superAdminToken, config.tokenCacheMs);
  installErrorHandler(app);
  app.addHook('onResponse', async (req, reply) => {
    const ms = reply.elapsedTime;
    if (reply.statusCode >= 500 || ms > 2_000) {
      req.log.warn({ method: req.method, url: req.routeOptions.url, status: reply.statusCode, ms: Math.round(ms) }, 'request');
    }
  });
  // Form fields land in the body as values, so one schema validates JSON and multipart alike.
  await app.register(multipart, {
    attachFieldsToBody: 'keyValues',
    limits: { fileSize: config.mediaMaxBytes, files: 1, fields: 20 },
    onFile: async (part) => {
      const upload: UploadedFile = { data: await part.toBuffer(), mimeType: part.mimetype, fileName: part.filename, truncated: part.file.truncated };
      (part as unknown as { value: UploadedFile }).value = upload;
    },
  });
  await app.register(swagger, {
    openapi: {
      info: { title: 'Conversation messaging API', version: '2.0.0', description: 'External (v2) and tenant APIs. See README.' },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });

  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  // Ready = this gateway can serve. A service that is down answers its own routes 503 with
  // Retry-After (kit's status table); it must not take the gateway's other routes out of service.
  app.get('/readyz', { schema: { hide: true } }, async () => ({ status: 'ready' }));

  await app.register(tenantRoutes, { clients, auth });
  await app.register(whatsappRoutes, { clients, auth });
  await app.register(paymentWebhookRoutes, { clients });
  await app.register(inboundRoutes, { clients, metaVerifyToken: config.metaVerifyToken, metaAppSecret: config.metaAppSecret });
  await app.register(externalApi, { prefix: '/v2/api/external/:apiId', clients, auth, mediaMaxBytes: config.mediaMaxBytes });
  await app.register(mediaRoutes, { clients, secret: config.mediaUrlSecret });
  await app.register(webchatRoutes, { clients, secret: config.mediaUrlSecret });
  const stopGraphql = await mountGraphql(app, config, auth, clients);
  app.addHook('onClose', async () => stopGraphql());
  return { app, clients, auth };
}
