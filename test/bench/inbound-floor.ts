// The floor of the inbound bench, in a process of its own: one Fastify process that checks the
// provider's signature (Meta's X-Hub-Signature-256, the engine's bearer token) over the raw bytes,
// inserts each message once (by provider message id) on the same database, and POSTs a signed
// webhook to the same customer receiver before answering. Started by inbound.ts with MONGODB_URI,
// META_APP_SECRET, ENGINE_TOKEN, WEBHOOK_SECRET and RECEIVER_URL; prints its port on stdout.
import Fastify from 'fastify';
import mongoose from 'mongoose';
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

interface Incoming {
  id: string;
  from: string;
  text: string;
}

const safeEqual = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

async function main() {
  const conn = await mongoose.createConnection(process.env.MONGODB_URI!, { dbName: 'bench_floor' }).asPromise();
  const messages = conn.collection('inbound_messages');
  const appSecret = process.env.META_APP_SECRET!;
  const engineToken = process.env.ENGINE_TOKEN!;
  const receiverUrl = process.env.RECEIVER_URL!;
  const webhookKey = Buffer.from(process.env.WEBHOOK_SECRET!.replace(/^whsec_/, ''), 'base64');
  const floor = Fastify();
  floor.removeAllContentTypeParsers();
  floor.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));

  const store = async (channelId: number, m: Incoming) => {
    const now = new Date();
    try {
      await messages.insertOne({
        _id: `in:${channelId}:${m.id}` as never,
        tenantId: 1,
        channelId,
        from: m.from,
        direction: 'in',
        body: m.text,
        status: 'delivered',
        providerMessageId: m.id,
        createdAt: now,
        updatedAt: now,
      });
    } catch (err) {
      if ((err as { code?: number }).code === 11000) return; // a redelivery: stored and sent already
      throw err;
    }
    const id = `evt_${createHash('sha256').update(`message:in:${channelId}:${m.id}`).digest('hex').slice(0, 32)}`;
    const timestamp = Math.floor(Date.now() / 1000);
    const body = JSON.stringify({
      method: 'message',
      msg: {
        messageId: `in:${channelId}:${m.id}`,
        whatsappId: channelId,
        direction: 'in',
        from: m.from,
        body: m.text,
        providerMessageId: m.id,
        createdAt: now,
      },
    });
    const signature = `v1,${createHmac('sha256', webhookKey).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
    const res = await fetch(`${receiverUrl}/floor`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'webhook-id': id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signature,
      },
      body,
      signal: AbortSignal.timeout(10_000),
    });
    await res.arrayBuffer();
    if (!res.ok) throw new Error(`receiver answered ${res.status}`);
  };

  floor.post('/webhooks/meta', async (req, reply) => {
    const raw = req.body as Buffer;
    const given = String(req.headers['x-hub-signature-256'] ?? '');
    if (!safeEqual(given, `sha256=${createHmac('sha256', appSecret).update(raw).digest('hex')}`))
      return reply.code(403).send({ success: false });
    const delivery = JSON.parse(raw.toString('utf8'));
    for (const entry of delivery.entry ?? []) {
      for (const change of entry.changes ?? []) {
        for (const m of change.value?.messages ?? []) await store(1, { id: m.id, from: m.from, text: m.text?.body ?? '' });
      }
    }
    return { success: true };
  });

  floor.post('/webhooks/engine/:channelId', async (req, reply) => {
    if (!safeEqual(String(req.headers.authorization ?? ''), `Bearer ${engineToken}`)) return reply.code(401).send({ success: false });
    const event = JSON.parse((req.body as Buffer).toString('utf8'));
    for (const m of event.data?.messages ?? [])
      await store(2, { id: m.key.id, from: m.key.remoteJid.split('@')[0], text: m.message?.conversation ?? '' });
    return { success: true };
  });

  await floor.listen({ port: 0, host: '127.0.0.1' });
  console.log(JSON.stringify({ port: (floor.server.address() as { port: number }).port }));
  process.once(
    'SIGTERM',
    () =>
      void floor
        .close()
        .then(() => conn.close())
        .then(() => process.exit(0)),
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
