import { bearerMatches, channelTarget, DomainError, forbidden, isServiceError, safeEqual, unauthenticated, type proto } from '@convo/kit';
import * as grpc from '@grpc/grpc-js';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { createHmac } from 'node:crypto';
import Type, { type Static } from 'typebox';
import type { Authenticator } from '../auth';
import type { Clients } from '../clients';
import { InboundResult } from '../schemas/webhook.schemas';

/** Meta batches many events per POST and engines may inline thumbnails: generous, but bounded. */
const INBOUND_BODY_LIMIT = 8 * 1024 * 1024;

export interface InboundOptions {
  clients: Clients;
  /** Engine channels for the webhook's token check, cached while the revocation stream is live. */
  auth: Pick<Authenticator, 'channelById'>;
  /** META_VERIFY_TOKEN: the token set in the Meta app's webhook settings; empty refuses the handshake. */
  metaVerifyToken: string;
  /** META_APP_SECRET: signs every Meta delivery; empty answers 503 (Meta retries meanwhile). */
  metaAppSecret: string;
}

const bodyOf = (body: unknown) => (Buffer.isBuffer(body) ? body : Buffer.alloc(0));

/**
 * Provider webhooks: Meta's (WhatsApp Cloud API, Messenger, Instagram) and unofficial engines'.
 * The body stays raw in this plugin (its own content-type parser; the global JSON parser is
 * untouched), because signatures are computed over the exact bytes received, before any parsing.
 * Checked, the body goes as received to messaging in one call (IngestInbound), which has
 * channel-engines parse it (ParseInbound) and stores the events and their customer-webhook events.
 * A 200 is answered only once all of that is stored: any failure answers an error, and the
 * provider delivers again.
 */
export async function inboundRoutes(app: FastifyInstance, opts: InboundOptions) {
  const { clients } = opts;
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  const ingest = async (reply: FastifyReply, request: proto.channelEngines.ParseInboundRequest) => {
    const { received, results } = await clients.messaging.IngestInbound(request);
    // messaging writes no outcome beyond those InboundResult lists.
    const answer: Static<typeof InboundResult> = {
      success: true,
      data: { received, results: results as Static<typeof InboundResult>['data']['results'] },
    };
    return reply.send(answer);
  };

  r.get(
    '/webhooks/meta',
    {
      schema: {
        summary: "Meta's subscription check (hub.challenge)",
        tags: ['webhooks'],
        security: [],
        querystring: Type.Object({
          'hub.mode': Type.Optional(Type.String({ maxLength: 32 })),
          'hub.verify_token': Type.Optional(Type.String({ maxLength: 512 })),
          'hub.challenge': Type.Optional(Type.String({ maxLength: 512 })),
        }),
        // Meta reads the challenge back as text.
        produces: ['text/plain'],
        response: { 200: Type.String({ description: 'The hub.challenge received' }) },
      },
    },
    async (req, reply) => {
      const q = req.query;
      const ok = !!opts.metaVerifyToken && q['hub.mode'] === 'subscribe' && safeEqual(q['hub.verify_token'] ?? '', opts.metaVerifyToken);
      if (!ok) throw forbidden('Webhook verification failed');
      return reply.type('text/plain; charset=utf-8').send(q['hub.challenge'] ?? '');
    },
  );

  r.post(
    '/webhooks/meta',
    {
      bodyLimit: INBOUND_BODY_LIMIT,
      schema: {
        summary: "Meta's events (WhatsApp Cloud API, Instagram, Messenger), signed with X-Hub-Signature-256",
        response: { 200: InboundResult },
        tags: ['webhooks'],
        security: [],
      },
    },
    async (req, reply) => {
      if (!opts.metaAppSecret) throw new DomainError('unavailable', 'ERR_WEBHOOK_NOT_CONFIGURED', 'META_APP_SECRET is not set');
      const body = bodyOf(req.body);
      const header = req.headers['x-hub-signature-256'];
      const given = typeof header === 'string' && header.startsWith('sha256=') ? header.slice('sha256='.length) : '';
      if (!given) throw unauthenticated('Missing X-Hub-Signature-256');
      const expected = createHmac('sha256', opts.metaAppSecret).update(body).digest('hex');
      if (!safeEqual(given.toLowerCase(), expected)) throw forbidden('X-Hub-Signature-256 does not match the body');
      return ingest(reply, { source: 'meta', body });
    },
  );

  r.post(
    '/webhooks/engine/:channelId',
    {
      bodyLimit: INBOUND_BODY_LIMIT,
      schema: {
        summary: "An engine's events for one channel, with the channel's engine token",
        tags: ['webhooks'],
        security: [],
        response: { 200: InboundResult },
        params: Type.Object({ channelId: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }) }),
        querystring: Type.Object({ token: Type.Optional(Type.String({ maxLength: 1024 })) }),
      },
    },
    async (req, reply) => {
      // An unknown channel answers exactly as a known one with a wrong token, so that channel ids
      // cannot be enumerated; a channel without an engine token accepts nothing.
      const channel = await opts.auth.channelById(req.params.channelId).catch((err: unknown) => {
        if (isServiceError(err) && err.code === grpc.status.NOT_FOUND) return undefined;
        throw err;
      });
      // Several engine servers cannot add headers to their webhooks (WPPConnect, uazapi, WuzAPI):
      // the token may also be part of the URL configured there, `?token=<engineToken>`.
      const authorized =
        !!channel?.engineToken &&
        (bearerMatches(req.headers.authorization, channel.engineToken) || safeEqual(req.query.token ?? '', channel.engineToken));
      if (!authorized)
        throw unauthenticated("Missing or wrong engine token (Authorization: Bearer <the channel's engineToken>, or ?token=)");
      return ingest(reply, { source: 'engine', channel: channelTarget(channel!), body: bodyOf(req.body) });
    },
  );
}
