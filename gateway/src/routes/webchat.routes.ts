import { notFound, safeEqual, unauthenticated, type proto } from '@convo/kit';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import Type, { type Static } from 'typebox';
import type { Authenticator } from '../auth';
import type { Clients } from '../clients';
import type { RateLimits } from '../rate-limits';
import { envelope } from '../errors';
import { Id, NonEmpty } from '../schemas/common';
import { Envelope, Exact, Nullable } from '../schemas/envelopes';
import { security } from './principal';

/** A long poll asks channel-engines this often while nothing is queued for the visitor. */
export const POLL_INTERVAL_MS = 1_000;
export const MAX_WAIT_SECONDS = 25;

const tags = ['webchat'];

// ---- schemas -------------------------------------------------------------------------------

const WebchatParams = Type.Object({ channelId: Id('A webchat channel (session) id') });
const PullQuery = Type.Object({
  after: Type.Optional(Type.String({ maxLength: 200, description: 'The id of the last message the widget has; absent for all' })),
  wait: Type.Integer({
    minimum: 0,
    maximum: MAX_WAIT_SECONDS,
    default: 0,
    description: 'Seconds to wait for a message when none is queued',
  }),
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 50 }),
});
const VisitorMessageBody = Type.Object({
  text: NonEmpty('What the visitor wrote'),
  id: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 100,
      pattern: '^[A-Za-z0-9._:-]+$',
      description: "The widget's id of this message: a retry with the same id is stored once",
    }),
  ),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: "The visitor's name, shown to agents" })),
});

const WebchatMessage = Exact(
  {
    id: Type.String(),
    text: Type.String(),
    mediaUrl: Nullable('string'),
    mimeType: Nullable('string'),
    fileName: Nullable('string'),
    interactiveType: Nullable('string'),
    interactive: Type.Unknown(),
    createdAt: Type.String(),
  },
  { $id: 'WebchatMessage' },
);
const WebchatVisitor = Envelope(Exact({ visitorId: Type.String(), visitorToken: Type.String() }), { $id: 'WebchatVisitor' });
const WebchatMessages = Envelope(
  Exact({ messages: Type.Array(WebchatMessage), cursor: Nullable('string', { description: 'Pass as `after` to poll on' }) }),
  { $id: 'WebchatMessages' },
);
const WebchatSent = Envelope(Exact({ id: Type.String(), messageId: Nullable('string'), duplicate: Type.Boolean() }), {
  $id: 'WebchatSent',
});

// ---- visitor tokens ------------------------------------------------------------------------

declare module 'fastify' {
  interface FastifyRequest {
    webchatVisitor?: string;
  }
}

/**
 * Visitor ids are 15 random digits (the first not 0): the visitor is the contact of its web chat
 * tickets, and a contact number is at most 15 digits (createTicket `number` = visitor id works).
 */
const newVisitorId = () => String((BigInt(`0x${randomBytes(8).toString('hex')}`) % 900_000_000_000_000n) + 100_000_000_000_000n);
const VISITOR_ID = /^[1-9]\d{14}$/;

/**
 * Visitor tokens are signed with a key of their own, derived from the gateway's media-link secret,
 * so that no signature made for one purpose is ever valid for the other.
 */
export const visitorKey = (secret: string) => createHmac('sha256', secret).update('convo webchat visitor tokens v1').digest();

/** `<visitorId>.<HMAC-SHA256 of channel and visitor>`: the widget's credential, tied to one channel. */
const sign = (key: Buffer, channelId: number, visitorId: string) =>
  createHmac('sha256', key).update(`${channelId}\n${visitorId}`).digest('base64url');
export const visitorToken = (key: Buffer, channelId: number, visitorId: string) => `${visitorId}.${sign(key, channelId, visitorId)}`;

/** The visitor a bearer token names for this channel, or undefined when it is not one we issued for it. */
function visitorOf(header: string | undefined, key: Buffer, channelId: number): string | undefined {
  const token = /^bearer /i.test(header ?? '') ? header!.slice(7).trim() : '';
  const dot = token.indexOf('.');
  const visitorId = token.slice(0, dot);
  if (dot < 0 || !VISITOR_ID.test(visitorId)) return undefined;
  return safeEqual(token.slice(dot + 1), sign(key, channelId, visitorId)) ? visitorId : undefined;
}

// ---- routes --------------------------------------------------------------------------------

const record = (m: proto.channelEngines.WebchatMessage__Output): Static<typeof WebchatMessage> => ({
  id: m.id,
  text: m.text,
  mediaUrl: m.mediaUrl || null,
  mimeType: m.mimeType || null,
  fileName: m.fileName || null,
  interactiveType: m.interactiveType || null,
  interactive: m.interactiveJson ? (JSON.parse(m.interactiveJson) as unknown) : null,
  createdAt: m.createdAt,
});

/**
 * The web chat widget's API (no integration token: anonymous visitors of a `webchat` channel):
 * a visitor is issued an id and a token, reads the messages agents send it by long polling, and
 * writes messages that arrive as incoming messages of its ticket. See docs/channels/webchat-email-marketplace.md.
 */
export async function webchatRoutes(
  app: FastifyInstance,
  {
    clients,
    auth,
    secret,
    rateLimits,
  }: { clients: Clients; auth: Pick<Authenticator, 'channelById'>; secret: string; rateLimits?: RateLimits },
) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const key = visitorKey(secret);
  const polls = new Set<AbortController>();
  app.addHook('preClose', async () => {
    for (const poll of polls) poll.abort();
  });

  /**
   * Only web chat channels have visitors; any other id is as unknown as an absent one. The channel
   * comes from the gateway's copy while its revocation stream is live: not a read per message.
   */
  const requireWebchat = async (channelId: number) => {
    const channel = await auth.channelById(channelId);
    if (channel.type !== 'webchat') throw notFound('channel');
  };

  // Before validation: a request without a valid visitor token learns nothing else.
  const visitorAuth = async (req: FastifyRequest) => {
    const channelId = Number((req.params as { channelId?: string }).channelId);
    const visitorId = visitorOf(req.headers.authorization, key, channelId);
    if (!visitorId) throw unauthenticated('Missing or invalid visitor token');
    req.webchatVisitor = visitorId;
  };

  /** Anonymous callers are counted by client address and by channel (docs/operations.md "Limits"). */
  const limited = async (req: FastifyRequest, reply: FastifyReply, kind: 'visitors' | 'polls', channelId: number) => {
    if (!rateLimits) return false;
    const c = rateLimits.config;
    const [perAddress, perChannel] =
      kind === 'visitors' ? [c.visitorsPerAddress, c.visitorsPerChannel] : [c.pollsPerAddress, c.pollsPerChannel];
    return !(await rateLimits.charge(req, reply, [
      [perAddress, `w${kind}-ip:${req.ip}`],
      [perChannel, `w${kind}-ch:${channelId}`],
    ]));
  };

  r.post(
    '/webchat/:channelId/visitors',
    {
      // No bearer token (an empty requirement says so): a new visitor has none yet.
      schema: { summary: 'Start a web chat visitor session', params: WebchatParams, response: { 200: WebchatVisitor }, tags, security: [] },
    },
    async (req, reply) => {
      const { channelId } = req.params;
      if (await limited(req, reply, 'visitors', channelId)) return reply;
      await requireWebchat(channelId);
      const visitorId = newVisitorId();
      return { success: true as const, data: { visitorId, visitorToken: visitorToken(key, channelId, visitorId) } };
    },
  );

  r.get(
    '/webchat/:channelId/messages',
    {
      onRequest: visitorAuth,
      schema: {
        summary: "Poll the visitor's conversation",
        params: WebchatParams,
        querystring: PullQuery,
        response: { 200: WebchatMessages },
        tags,
        security,
      },
    },
    async (req, reply) => {
      const { channelId } = req.params;
      const { after = '', wait, limit } = req.query;
      const visitorId = req.webchatVisitor!;
      if (await limited(req, reply, 'polls', channelId)) return reply;
      // A cap on long polls held open at once by this gateway: one more is told to come back.
      if (wait > 0 && rateLimits?.config.maxOpenPolls && polls.size >= rateLimits.config.maxOpenPolls) {
        // An error answer: the envelope every error has, not this route's 200 (the type provider types only that).
        return (reply as FastifyReply)
          .code(429)
          .header('retry-after', 1)
          .send(envelope('ERR_RATE_LIMITED', 'Too many open long polls; retry in 1 s'));
      }
      const answer = (messages: proto.channelEngines.WebchatMessage__Output[]) => ({
        success: true as const,
        data: { messages: messages.map(record), cursor: messages.at(-1)?.id ?? (after || null) },
      });
      // A widget that hangs up, or the gateway shutting down, ends the poll at once.
      const stop = new AbortController();
      reply.raw.once('close', () => stop.abort());
      polls.add(stop);
      try {
        const deadline = Date.now() + wait * 1000;
        for (;;) {
          const { messages } = await clients.channelEngines.PullWebchat({ channelId, visitorId, after, limit });
          const left = deadline - Date.now();
          if (messages.length || left <= 0) return answer(messages);
          await sleep(Math.min(POLL_INTERVAL_MS, left), undefined, { signal: stop.signal }).catch(() => undefined);
          if (stop.signal.aborted) return answer([]);
        }
      } finally {
        polls.delete(stop);
      }
    },
  );

  r.post(
    '/webchat/:channelId/messages',
    {
      onRequest: visitorAuth,
      schema: {
        summary: 'Send a message as the visitor',
        params: WebchatParams,
        body: VisitorMessageBody,
        response: { 200: WebchatSent },
        tags,
        security,
      },
    },
    async (req) => {
      const { channelId } = req.params;
      const b = req.body;
      await requireWebchat(channelId);
      const id = b.id ?? randomUUID();
      // Provider ids are unique per channel; widget ids only per visitor.
      const { results } = await clients.messaging.IngestEvents({
        events: [
          {
            kind: 'message',
            channelId,
            channelType: 'webchat',
            from: req.webchatVisitor!,
            contactName: b.name ?? '',
            providerMessageId: `${req.webchatVisitor}:${id}`,
            body: b.text,
            messageType: 'text',
            timestampMs: Date.now(),
          },
        ],
      });
      const [result] = results;
      return { success: true as const, data: { id, messageId: result?.messageId || null, duplicate: result?.outcome === 'duplicate' } };
    },
  );
}
