import { channelTarget, grpc, isServiceError, type Logger } from '@convo/kit';
import { backoffMs } from '../backoff';
import type { ChangeDoc } from '../db/changes.repository';
import type { MessagesRepository } from '../db/messages.repository';
import type { MessageDoc, Reaction } from '../db/models';
import { addressAtDelivery } from './address';
import type { DispatchPeers } from './peers';
import { classify, type Failure } from './failures';

type Settings = { retryWindowMs: number; backoffBaseMs: number; backoffMaxMs: number; providerDeadlineMs: number };

/** How a change's attempt ended: `retry` at `retryAt` holds back the rest of its ticket, as a message's does. */
export interface ChangeOutcome {
  outcome: 'sent' | 'failed' | 'retry';
  retryAt?: number;
}

/** Whether a queued item of a ticket is a change (message_changes) rather than a message. */
export const isChange = (doc: MessageDoc): doc is ChangeDoc => !!(doc as Partial<ChangeDoc>).change;

/**
 * One attempt of a queued change (a reaction, an edit, a deletion: db/changes.repository.ts),
 * in its ticket's order among the messages. The provider names the message by its own id, which the
 * message has once it was sent: until then the change waits (retried with backoff, within the retry
 * window), and a message that failed fails its change. Through the channel the message left by (a
 * linked engine for a coexistence send). Once the provider took it, the message shows it: our
 * reaction in `reactions` (fromMe), the new text with the old in `editHistory`, or `deleted`.
 */
export class ChangeDelivery {
  constructor(
    private readonly repo: MessagesRepository,
    private readonly peers: DispatchPeers,
    private readonly settings: Settings,
    private readonly log: Logger,
  ) {}

  async attempt(doc: ChangeDoc): Promise<ChangeOutcome> {
    const { change } = doc;
    let target: MessageDoc | null;
    let channel;
    try {
      target = await this.repo.findById(doc.tenantId, change.targetId);
      if (!target) return this.failed(doc, { transient: false, retryAfterMs: null, reason: 'the message no longer exists' });
      if (!target.providerMessageId) {
        if (target.status !== 'queued')
          return this.failed(doc, { transient: false, retryAfterMs: null, reason: 'the message was never delivered' });
        return this.failed(doc, { transient: true, retryAfterMs: null, reason: 'waiting for the message to be sent' });
      }
      channel = await this.peers.channels.find(doc.tenantId, target.viaChannelId ?? doc.channelId);
    } catch (err) {
      return this.failed(doc, classify(err));
    }
    if (!channel) return this.failed(doc, { transient: false, retryAfterMs: null, reason: 'the channel no longer exists' });
    const to = await addressAtDelivery(doc, (tenantId, ticketId) => this.peers.contactOf(tenantId, ticketId), this.log);
    let providerMessageId: string;
    try {
      ({ providerMessageId } = await this.peers.engines.Deliver(
        {
          channel: channelTarget(channel),
          to,
          content: {
            text: change.body ?? '',
            change: change.kind,
            targetId: target.providerMessageId,
            targetFromMe: target.direction === 'out',
            emoji: change.emoji ?? '',
          },
          reference: doc._id,
        },
        { deadlineMs: this.settings.providerDeadlineMs },
      ));
    } catch (err) {
      if (isServiceError(err) && err.code === grpc.status.DEADLINE_EXCEEDED)
        this.log.warn({ changeId: doc._id }, 'change unanswered within its deadline: the provider may have it');
      return this.failed(doc, classify(err));
    }
    await this.apply(target, doc);
    await this.repo.changes.finish(doc, 'sent', { providerMessageId, error: '' });
    return { outcome: 'sent' };
  }

  /** The message as the provider now shows it. */
  private async apply(target: MessageDoc, doc: ChangeDoc): Promise<void> {
    const at = new Date();
    const { kind, emoji = '', body = '' } = doc.change;
    if (kind === 'react') {
      const reactions: Reaction[] = [...(target.reactions ?? []).filter((r) => !r.fromMe), ...(emoji ? [{ emoji, fromMe: true, at }] : [])];
      await this.repo.change(target, {}, { reactions });
    } else if (kind === 'edit') {
      if (target.body === body) return;
      const written = target.editedAt ?? target.providerTimestamp ?? target.createdAt;
      const editHistory = [...(target.editHistory ?? []), { body: target.body, at: written }];
      await this.repo.change(target, {}, { body, edited: true, editedAt: at, editHistory });
    } else {
      await this.repo.change(target, {}, { deleted: true });
    }
  }

  private async failed(doc: ChangeDoc, failure: Failure): Promise<ChangeOutcome> {
    const now = Date.now();
    const attempts = (doc.attempts ?? 0) + 1;
    if (failure.transient && now - doc.createdAt.getTime() < this.settings.retryWindowMs) {
      const delay = failure.retryAfterMs ?? backoffMs(attempts, this.settings.backoffBaseMs, this.settings.backoffMaxMs);
      await this.repo.changes.reschedule(doc, attempts, new Date(now + delay), failure.reason);
      return { outcome: 'retry', retryAt: now + delay };
    }
    await this.repo.changes.finish(doc, 'failed', { error: failure.reason });
    this.log.warn({ changeId: doc._id, messageId: doc.change.targetId, reason: failure.reason }, 'change failed');
    return { outcome: 'failed' };
  }
}
