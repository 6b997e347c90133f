import { counter, gauge } from '@convo/kit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { envelope } from './errors';

/**
 * How much request body the gateway holds at once, whatever the concurrency.
 *
 * Every request that carries a body is admitted, before its body is read (after authentication
 * and rate limits), under one process-wide byte budget: it takes its declared `Content-Length`
 * (a chunked body: its route's body limit, the most it may turn out to be) and gives it back when
 * its answer is done or its connection closes. A request that does not fit answers at once 503
 * `ERR_BUSY` with `Retry-After`, its body unread (read into nothing afterwards: unread-body.ts), instead of being read into memory and timing out
 * later. A lone request larger than the budget is still admitted when nothing else is held, so a
 * budget below a route's body limit never refuses that route outright.
 *
 * A client that asks `Expect: 100-continue` (curl does above 1 MiB) is told to send its body only
 * once it is admitted; a refused one gets the 503 without sending it.
 *
 * What one admitted byte costs is bounded elsewhere: a media route's base64 is decoded while it
 * streams in (validation/base64-stream.ts) and a multipart file is taken in one buffer of its size.
 */
export interface BodyBudget {
  readonly limitBytes: number;
  /** Bytes admitted now. */
  readonly heldBytes: number;
}

/** Seconds a refused client is asked to wait: about the time an admitted 20 MB upload takes. */
export const BUSY_RETRY_AFTER_SECONDS = 2;

export function installBodyBudget(app: FastifyInstance, limitBytes: number): BodyBudget {
  const state = { limitBytes, heldBytes: 0 };
  // Node answers `100 Continue` itself unless the server listens for 'checkContinue': then the
  // request goes the usual way and the hook below says continue once the body is admitted.
  app.server.on('checkContinue', (req, res) => app.server.emit('request', req, res));
  const goOn = (req: FastifyRequest, reply: FastifyReply) => {
    if (/100-continue/i.test(req.headers.expect ?? '') && !reply.raw.headersSent) reply.raw.writeContinue();
  };
  if (limitBytes <= 0) {
    app.addHook('preParsing', async (req, reply, payload) => {
      goOn(req, reply);
      return payload;
    });
    return state;
  }
  const held = gauge({
    name: 'convo_gateway_body_bytes_held',
    help: 'Request body bytes admitted under the body budget (BODY_BUDGET_BYTES) now.',
  });
  const refused = counter({
    name: 'convo_gateway_body_busy_total',
    help: 'Requests answered 503 ERR_BUSY: their body did not fit the body budget.',
  });
  app.addHook('preParsing', async (req: FastifyRequest, reply: FastifyReply, payload) => {
    const size = declaredBodyBytes(req);
    if (size === 0) {
      goOn(req, reply);
      return payload;
    }
    if (state.heldBytes > 0 && state.heldBytes + size > limitBytes) {
      refused.inc();
      reply
        .code(503)
        .header('retry-after', String(BUSY_RETRY_AFTER_SECONDS))
        .send(
          envelope(
            'ERR_BUSY',
            `The gateway is receiving as many request bodies as it holds at once; retry after ${BUSY_RETRY_AFTER_SECONDS} s`,
          ),
        );
      return reply;
    }
    state.heldBytes += size;
    held.set(state.heldBytes);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      state.heldBytes -= size;
      held.set(state.heldBytes);
    };
    reply.raw.once('close', release);
    reply.raw.once('finish', release);
    goOn(req, reply);
    return payload;
  });
  return state;
}

/** The body a request says it carries: its Content-Length, or its route's limit when chunked. */
function declaredBodyBytes(req: FastifyRequest): number {
  const length = req.headers['content-length'];
  if (length !== undefined) {
    const n = Number(length);
    return Number.isFinite(n) && n > 0 ? n : 0;
  }
  if (req.headers['transfer-encoding'] === undefined) return 0;
  return req.routeOptions.bodyLimit ?? 0;
}
