import type { proto } from '@convo/kit';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Clients } from '../clients';
import { ApiParams, contactKeyOf } from '../schemas/common';
import {
  GroupMediaUrlBody,
  GroupSendBody,
  PresenceBody,
  SendBase64Body,
  SendByNumberBody,
  SendUrlBody,
  SendVoiceBody,
} from '../schemas/beyond-seed.schemas';
import { SendResult } from '../schemas/envelopes';
import { PresenceResult } from '../schemas/message.schemas';
import { mediaOf, sendAnswer } from './messages.routes';
import { principalOf, security } from './principal';
import { installMediaJsonParser } from '../validation/base64-stream';

const tags = ['messages'];

interface NumberSend {
  number: string;
  body?: string;
  externalKey?: string;
  isClosed?: boolean;
  validateNumber?: boolean;
  routeVia?: 'auto' | 'official';
}

/**
 * Sends by number (docs/api/beyond-the-seed.md): `POST {root}`, `/url`, `/base64`, `/voice`.
 * Each is sendMessageByTicket addressed by number: messaging's one SendByTicket, given the number
 * and the integration's channel instead of a ticket, finds or opens the contact's current ticket
 * there and accepts the message exactly as a send to that ticket (same answer, idempotency, media
 * and SSRF rules). And `sendPresence`, which is no message.
 */
export async function numberSendRoutes(
  app: FastifyInstance,
  { clients, mediaMaxBytes, mediaBodyLimit }: { clients: Clients; mediaMaxBytes: number; mediaBodyLimit: number },
) {
  installMediaJsonParser(app, mediaMaxBytes);
  const media = { bodyLimit: mediaBodyLimit, config: { media: true } };
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  const send = async (req: FastifyRequest, b: NumberSend, media: proto.messaging.Media | undefined) => {
    const { tenantId, sessionId } = principalOf(req);
    const res = await clients.messaging.SendByTicket({
      tenantId,
      ticketId: 0,
      number: contactKeyOf(b.number),
      channelId: sessionId,
      body: b.body ?? '',
      externalKey: b.externalKey ?? '',
      reopen: false,
      isClosed: b.isClosed ?? false,
      validateNumber: b.validateNumber ?? false,
      media,
      routeVia: b.routeVia ?? '',
    });
    return sendAnswer(res);
  };

  r.post(
    '/',
    {
      ...media,
      schema: {
        params: ApiParams,
        body: SendByNumberBody,
        response: { 200: SendResult },
        tags,
        security,
        consumes: ['application/json', 'multipart/form-data'],
        summary: "Send to a number: the contact's current ticket on the integration's channel, opened when there is none",
      },
    },
    async (req) => send(req, req.body, mediaOf(req.body, mediaMaxBytes)),
  );

  r.post(
    '/url',
    {
      schema: {
        params: ApiParams,
        body: SendUrlBody,
        response: { 200: SendResult },
        tags,
        security,
        summary: 'Send a file by its public URL to a number',
      },
    },
    async (req) => send(req, req.body, mediaOf(req.body, mediaMaxBytes)),
  );

  r.post(
    '/base64',
    {
      ...media,
      schema: {
        params: ApiParams,
        body: SendBase64Body,
        response: { 200: SendResult },
        tags,
        security,
        summary: 'Send a file in base64 to a number',
      },
    },
    async (req) => send(req, req.body, mediaOf(req.body, mediaMaxBytes)),
  );

  r.post(
    '/voice',
    {
      schema: {
        params: ApiParams,
        body: SendVoiceBody,
        response: { 200: SendResult },
        tags,
        security,
        summary: 'Send an audio by its public URL to a number as a voice note',
      },
    },
    async (req) => {
      const { audio, ...rest } = req.body;
      return send(req, rest, { url: audio, mimeType: '', fileName: '', voice: true });
    },
  );

  // ---- WhatsApp groups: the group's ticket on the integration's channel (an engine kind with groups) --

  const sendToGroup = async (
    req: FastifyRequest,
    b: { groupId?: string; number?: string; body?: string; externalKey?: string; isClosed?: boolean },
    media?: proto.messaging.Media,
  ) => {
    const { tenantId, sessionId } = principalOf(req);
    const res = await clients.messaging.SendByTicket({
      tenantId,
      ticketId: 0,
      number: '',
      groupId: (b.groupId ?? b.number!).replace(/@g\.us$/, ''),
      channelId: sessionId,
      body: b.body ?? '',
      externalKey: b.externalKey ?? '',
      reopen: false,
      isClosed: b.isClosed ?? false,
      validateNumber: false,
      media,
    });
    return sendAnswer(res);
  };

  r.post(
    '/group',
    {
      schema: {
        params: ApiParams,
        body: GroupSendBody,
        response: { 200: SendResult },
        tags,
        security,
        summary: "Send a text to a WhatsApp group of the integration's engine channel",
      },
    },
    async (req) => sendToGroup(req, req.body),
  );

  r.post(
    '/groupMediaUrl',
    {
      schema: {
        params: ApiParams,
        body: GroupMediaUrlBody,
        response: { 200: SendResult },
        tags,
        security,
        summary: 'Send a file by its public URL to a WhatsApp group',
      },
    },
    async (req) => sendToGroup(req, req.body, mediaOf(req.body, mediaMaxBytes)),
  );

  r.post(
    '/sendPresence',
    {
      schema: {
        params: ApiParams,
        body: PresenceBody,
        response: { 200: PresenceResult },
        tags,
        security,
        summary: 'Show "typing…" (or stop it) to the contact of a ticket',
      },
    },
    async (req) => {
      const { ticketId, state } = req.body;
      const res = await clients.messaging.SendPresence({ tenantId: principalOf(req).tenantId, ticketId, state });
      // messaging answers the state it was given.
      return { success: true as const, data: { ticketId: res.ticketId, state: res.state as typeof state, applied: res.applied } };
    },
  );
}
