import type { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

/**
 * An answer sent before its request's body is all in (413 on the declared size or past the route's
 * limit, the body budget's 503, a 401 or 429 before the body is read, a parser's 400 mid-body)
 * leaves the connection open and reads the rest of the body into nothing, as nginx's lingering
 * close does.
 *
 * Closing at once is what a client that writes its whole body before it reads (undici's fetch,
 * curl, most HTTP libraries) cannot take: the kernel answers the bytes still arriving at a closed
 * socket with a reset, and a reset throws away the answer the client has not read yet, so it sees
 * a broken pipe instead of the 413. Fastify marks a parser's refusal `Connection: close`, and Node
 * then closes the socket as soon as the answer is written; the mark is taken off here, so the
 * answer says the server goes on reading (RFC 9110 §10.1.1) and the connection serves the next
 * request once the body is read. A client that stops sending on the answer (curl does) closes it.
 *
 * What is read is bounded: past `maxBytes` of the rest, or `maxMs` after the answer, the
 * connection is closed, so an endless body holds nothing. Nothing read is kept.
 */
export interface DrainBounds {
  maxBytes: number;
  maxMs: number;
}

/** The largest body a route takes (media, 24 MiB) and more; a slow client gets 10 s to finish. */
export const DRAIN_BOUNDS: DrainBounds = { maxBytes: 32 * 1024 * 1024, maxMs: 10_000 };

export function installUnreadBodyDrain(app: FastifyInstance, bounds: DrainBounds = DRAIN_BOUNDS): void {
  app.addHook('onSend', async (req, reply, payload) => {
    // `complete`: the whole message was received, as on every request without a body. An injected
    // request (the warm-up's) has no socket to read.
    const socket = req.raw.socket;
    if (!req.raw.complete && socket instanceof Socket && !socket.destroyed) {
      reply.removeHeader('connection');
      drain(req.raw, bounds);
    }
    return payload;
  });
}

function drain(req: IncomingMessage, { maxBytes, maxMs }: DrainBounds): void {
  const socket = req.socket;
  let read = 0;
  const cut = () => socket.destroy();
  const timer = setTimeout(cut, maxMs).unref();
  const count = (chunk: Buffer) => {
    read += chunk.length;
    if (read > maxBytes) cut();
  };
  const done = () => {
    clearTimeout(timer);
    req.off('data', count);
    socket.off('close', done);
  };
  // Whatever was reading the body (a parser, multipart's busboy) has given up on it.
  req.unpipe();
  req.on('data', count);
  req.once('end', done);
  socket.once('close', done);
  req.resume();
}
