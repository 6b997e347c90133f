import { DomainError } from '@convo/kit';
import { connectDatabase } from '@convo/kit/mongo';
import { startTestMesh, type TestMesh } from '@convo/test-support';
import type { Connection } from 'mongoose';
import { WebchatRepository, webchatEntryId } from '../../src/db/webchat.repository';

// The web chat queue on the embedded database: a position it cannot claim is a domain error
// (503 ERR_WEBCHAT_BUSY, retryable), never a plain Error answered 500.

let mesh: TestMesh;
let conn: Connection;

beforeAll(async () => {
  mesh = await startTestMesh('channel-engines-webchat-repository-test');
  conn = await connectDatabase(mesh.database.uri, 'convo_engines_webchat_test');
}, 120_000);

afterAll(async () => {
  await conn?.close();
  await mesh?.stop();
});

const input = (visitorId: string) => ({
  tenantId: 1,
  channelId: 7,
  visitorId,
  reference: 'r',
  text: 'hi',
  mediaUrl: '',
  mimeType: '',
  fileName: '',
  interactiveType: '',
  interactiveJson: '',
});

it('queues at the next free position', async () => {
  const repo = new WebchatRepository(conn);
  expect((await repo.enqueue(input('v1'))).seq).toBe(1);
  expect((await repo.enqueue(input('v1'))).seq).toBe(2);
});

it('gives up on a position it can never claim with ERR_WEBCHAT_BUSY, a retryable domain error', async () => {
  const repo = new WebchatRepository(conn);
  // A document holding position 1's id, but not counted as the queue's last position: every attempt
  // reads 0 as the last, tries position 1 and loses it, as against writers that always win.
  await conn
    .collection('webchat_messages')
    .insertOne({ _id: webchatEntryId(7, 'v2', 1) as never, channelId: 7, visitorId: 'other', seq: 0 });
  const err = await repo.enqueue(input('v2')).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(DomainError);
  expect(err).toMatchObject({ kind: 'unavailable', code: 'ERR_WEBCHAT_BUSY' });
});
