// The floor of the send benchmark, in a process of its own: one Fastify process parsing the body,
// one insert of the same document on the same database, one HTTP call to the same fake provider.
// Started by run.ts with MONGODB_URI and ENGINE_URL; prints its port on stdout.
import Fastify from 'fastify';
import mongoose from 'mongoose';
import { randomUUID } from 'node:crypto';

async function main() {
  const conn = await mongoose.createConnection(process.env.MONGODB_URI!, { dbName: 'bench_floor' }).asPromise();
  const engineUrl = process.env.ENGINE_URL!;
  const floor = Fastify();
  floor.post('/send', async (req) => {
    const { ticketId, body: text } = req.body as { ticketId: number; body: string };
    const _id = randomUUID();
    const now = new Date();
    await conn.collection('messages').insertOne({
      _id: _id as never,
      tenantId: 1,
      ticketId,
      channelId: 1,
      direction: 'out',
      body: text,
      status: 'queued',
      createdAt: now,
      updatedAt: now,
    });
    const res = await fetch(`${engineUrl}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jid: '5511987654321@s.whatsapp.net', content: { text }, options: { messageId: _id } }),
      signal: AbortSignal.timeout(10_000),
    });
    await res.json();
    return { success: true, data: { messageId: _id, ticketId } };
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
