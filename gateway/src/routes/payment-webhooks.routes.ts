import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Clients } from '../clients';
import { PaymentWebhookParams } from '../schemas/tenant.schemas';
import { PaymentWebhookResult } from '../schemas/webhook.schemas';

/** Gateway events are small; anything bigger is not one. */
const WEBHOOK_BODY_LIMIT = 64 * 1024;

const headerMap = (req: FastifyRequest): Record<string, string> =>
  Object.fromEntries(
    Object.entries(req.headers)
      .filter((entry): entry is [string, string | string[]] => entry[1] !== undefined)
      .map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : value]),
  );

/**
 * `POST {base_url}/webhooks/payments/{gateway}`: a payment gateway's event. No bearer token: the
 * tenants service checks the gateway's own proof (shared token or signature) over the exact bytes
 * received, so this plugin keeps the body raw whatever its content type.
 */
export async function paymentWebhookRoutes(app: FastifyInstance, { clients }: { clients: Clients }) {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));

  app.post<{ Params: { gateway: string } }>(
    '/webhooks/payments/:gateway',
    {
      bodyLimit: WEBHOOK_BODY_LIMIT,
      // No bearer token (an empty requirement says so): the gateway's proof is checked by the tenants service.
      schema: {
        summary: "A payment gateway's event",
        params: PaymentWebhookParams,
        response: { 200: PaymentWebhookResult },
        tags: ['webhooks'],
        security: [],
      },
    },
    async (req) => {
      const res = await clients.tenants.ApplyPaymentWebhook({
        gateway: req.params.gateway,
        rawBody: Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0),
        headers: headerMap(req),
        query: req.url.includes('?') ? req.url.slice(req.url.indexOf('?') + 1) : '',
      });
      return { success: true as const, data: { received: true, applied: res.applied, duplicate: res.duplicate, outcome: res.outcome } };
    },
  );
}
