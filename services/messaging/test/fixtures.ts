import { randomUUID } from 'node:crypto';
import type { MessageDoc } from '../src/db/models';

/** An outgoing text message as the send path stores it when accepted: queued, with only the fields a text has. */
export function queuedText(fields: Partial<MessageDoc> & Pick<MessageDoc, 'ticketId' | 'body'>): MessageDoc {
  const now = new Date();
  return {
    _id: randomUUID(),
    tenantId: 1,
    channelId: 1,
    direction: 'out',
    status: 'queued',
    to: '5511999990000',
    createdAt: now,
    updatedAt: now,
    ...fields,
  };
}
