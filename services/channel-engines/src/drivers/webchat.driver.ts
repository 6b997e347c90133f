import { Issues, type proto } from '@convo/kit';
import { webchatEntrySeq, type WebchatEntryDoc, type WebchatRepository } from '../db/webchat.repository';
import type { Delivered, Driver, Outbound } from './driver';

/** PullWebchat answers this many messages when the caller names no limit, and never more than MAX. */
export const PULL_DEFAULT_LIMIT = 50;
export const PULL_MAX_LIMIT = 100;

/**
 * webchat: there is no provider. A message is queued for the visitor (`to`: the visitor id, the
 * ticket contact's number) and the widget pulls it through the gateway (PullWebchat). Delivery is
 * "queued"; the provider message id is the queue entry id, which is also the widget's cursor.
 * Visitor messages do not come through here: the gateway ingests them directly.
 */
export class WebchatDriver implements Driver {
  readonly kind = 'webchat';

  constructor(private readonly queue: WebchatRepository) {}

  async send({ channel, to, content, reference }: Outbound): Promise<Delivered> {
    const entry = await this.queue.enqueue({
      tenantId: channel.tenantId,
      channelId: channel.id,
      visitorId: to,
      reference,
      text: content.text,
      mediaUrl: content.mediaUrl,
      mimeType: content.mimeType,
      fileName: content.fileName,
      interactiveType: content.interactiveType,
      interactiveJson: content.interactiveJson,
    });
    return { providerMessageId: entry._id, status: 'queued' };
  }

  /** The visitor's messages after the cursor (`after`: the id of the last one the widget has). */
  async pull(req: proto.channelEngines.PullWebchatRequest__Output): Promise<proto.channelEngines.PullWebchatResponse> {
    const afterSeq = req.after ? webchatEntrySeq(req.after, req.channelId, req.visitorId) : 0;
    new Issues()
      .check(req.channelId > 0, 'channelId', 'is required')
      .check(!!req.visitorId, 'visitorId', 'is required')
      .check(req.limit >= 0, 'limit', 'must not be negative')
      .check(afterSeq !== undefined, 'after', 'is not a message id of this conversation')
      .throwIfAny('Invalid web chat pull');
    const limit = Math.min(req.limit || PULL_DEFAULT_LIMIT, PULL_MAX_LIMIT);
    const entries = await this.queue.after(req.channelId, req.visitorId, afterSeq ?? 0, limit);
    return { messages: entries.map(toMessage) };
  }
}

const toMessage = (e: WebchatEntryDoc): proto.channelEngines.WebchatMessage => ({
  id: e._id,
  reference: e.reference,
  text: e.text,
  mediaUrl: e.mediaUrl,
  mimeType: e.mimeType,
  fileName: e.fileName,
  interactiveType: e.interactiveType,
  interactiveJson: e.interactiveJson,
  createdAt: e.createdAt.toISOString(),
});
