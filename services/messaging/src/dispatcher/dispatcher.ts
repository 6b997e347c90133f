import { channelTarget, grpc, inStoredTrace, isServiceError, type Logger, type proto } from '@convo/kit';
import { LoopWorker } from '@convo/kit/worker-process';
import { backoffMs } from '../backoff';
import { addressAtDelivery } from './address';
import type { MessagesRepository } from '../db/messages.repository';
import type { MessageDoc } from '../db/models';
import type { PartitionLeases } from '../leases/partitions';
import type { DispatcherConfig } from './config';
import { ChangeDelivery, isChange } from './changes';
import type { DispatchPeers } from './peers';
import { byTicket, inAcceptanceOrder } from './order';
import { classify, type Failure } from './failures';
import { routeOf, type Route } from './route';

const MIN_ROUND_GAP_MS = 15;
/** Messages of one ticket a run reads at once (in order), when the round's read was cut short. */
const RUN_LIMIT = 100;
/** Tickets a round's query leaves out at the most (busy, waiting, another dispatcher's). */
const MAX_SKIPPED = 5_000;

type Settings = Pick<
  DispatcherConfig,
  'pollMs' | 'roundMs' | 'batchSize' | 'concurrency' | 'retryWindowMs' | 'backoffBaseMs' | 'backoffMaxMs' | 'intervalMs'
> & {
  /** The longest one attempt can take (channel lookup + provider call): a lease must outlive it. */
  attemptMs: number;
  providerDeadlineMs: number;
};

export type { DispatchPeers } from './peers';

export type AttemptOutcome = 'sent' | 'failed' | 'retry';

/**
 * Delivers queued messages. The work is split by channel into partitions (PartitionLeases); this
 * dispatcher delivers only the channels of partitions it holds, so a channel is served by one
 * dispatcher at a time: a message is never attempted twice at once, a ticket's messages go out one
 * after another in acceptance order, and a channel's pacing is kept in one place.
 *
 * Each round finds tickets with queued messages that are not being worked on and starts, per
 * ticket, a run that reads that ticket's queued messages and delivers them in order. Transient
 * failures (engine or provider unreachable, timeouts, 5xx, 429 after its Retry-After) are retried with backoff until
 * the message is older than the retry window; other refusals fail the message at once. Every status
 * change is recorded on the message, and becomes a `message.status` event when an integration of the
 * channel listens for one.
 */
export class Dispatcher extends LoopWorker {
  /** Tickets with a run under way, and how many runs each partition has. */
  private readonly busyTickets = new Set<number>();
  /** Tickets whose next message waits for a retry, until when. */
  private readonly waitingUntil = new Map<number, number>();
  /** Tickets of partitions another dispatcher holds, as learnt since the last lease round. */
  private readonly foreign = new Set<number>();
  private readonly busyPartitions = new Map<number, number>();
  private readonly runs = new Set<Promise<void>>();
  /** Per channel: the earliest time its next send may start. */
  private readonly nextSlot = new Map<number, number>();
  /** Accepted by the provider but not yet recorded (the database failed): recorded before anything else. */
  private readonly unrecorded = new Map<string, { doc: MessageDoc; providerMessageId: string; route: Route }>();
  private lastRoundAt = 0;
  /** Reactions, edits and deletions queued among the messages (dispatcher/changes.ts). */
  private readonly changes: ChangeDelivery;

  constructor(
    private readonly repo: MessagesRepository,
    private readonly leases: PartitionLeases,
    private readonly peers: DispatchPeers,
    private readonly settings: Settings,
    log: Logger,
  ) {
    super(log, { roundFailed: 'dispatch round failed', stallMs: Math.max(30_000, settings.roundMs * 10), minGapMs: MIN_ROUND_GAP_MS });
    this.changes = new ChangeDelivery(repo, peers, settings, log);
  }

  get partitions(): number[] {
    return this.leases.heldPartitions;
  }

  /**
   * Rounds run every poll, when something became due, and when a run finished while every run slot
   * was taken (one is free now); never closer together than MIN_ROUND_GAP_MS. A round reads the whole
   * queue on FerretDB (which can leave out no ticket), so a round per finished run made the
   * dispatcher's reads grow with the backlog; at one read per poll, the messages accepted meanwhile
   * wait at most DISPATCH_POLL_MS and each read serves every run it starts.
   */
  protected override async round(): Promise<number> {
    return Math.max(1, Math.min(this.settings.pollMs, await this.tick()));
  }

  protected override waitAfterFailure(): number {
    return Math.max(1, this.settings.pollMs);
  }

  /** Runs under way: each attempt is bounded by the provider deadline. */
  protected override underWay(): Iterable<Promise<void>> {
    return this.runs;
  }

  /**
   * After the grace, the partitions go back so that another dispatcher continues at once; runs
   * still under way keep their partitions' leases until these run out: nobody else starts them.
   */
  protected override async handBack(graceMs: number): Promise<void> {
    await this.flushUnrecorded().catch((err: unknown) => this.log.error({ err }, 'sent messages not recorded at shutdown'));
    if (!this.runs.size) return this.leases.releaseAll();
    // The process exits with them: a message the provider took meanwhile is not recorded as sent,
    // and is sent again once its partition's lease runs out (at most once more per such run).
    this.log.warn(
      { runs: this.runs.size, graceMs, partitions: this.leases.heldPartitions.length },
      'stopped with deliveries under way at the end of the shutdown grace',
    );
  }

  /**
   * One round: finds tickets with queued messages that nobody here is working on and starts a run
   * for each (up to the concurrency); answers how long until a ticket waiting for a retry is due.
   */
  async tick(): Promise<number> {
    const now = Date.now();
    if (now - this.lastRoundAt >= this.settings.roundMs) {
      await this.leases.maintain((p) => (this.busyPartitions.get(p) ?? 0) > 0);
      this.lastRoundAt = now;
      // Partitions may have moved: which tickets are someone else's is learnt again.
      this.foreign.clear();
    }
    await this.flushUnrecorded();
    let soonest = Infinity;
    for (const [ticketId, at] of this.waitingUntil) {
      if (at <= now) this.waitingUntil.delete(ticketId);
      else soonest = Math.min(soonest, at - now);
    }
    if (!this.leases.heldPartitions.length || this.busyTickets.size >= this.settings.concurrency)
      return Math.min(soonest, this.settings.roundMs);

    // A ticket busy now is left to its run (and skipped by the read): the messages read of it could
    // be from before its run recorded them. Every other ticket's messages are read after its last run
    // recorded what it delivered, and no run of it starts before the read answers.
    const busy = new Set(this.busyTickets);
    const skip = [...busy, ...this.waitingUntil.keys(), ...this.foreign].slice(0, MAX_SKIPPED);
    // The queued changes (message_changes) are read beside the messages, at once: a round waits for one read, not two.
    const [messages, changes] = await Promise.all([
      this.repo.queuedMessages(skip, this.settings.batchSize),
      this.repo.changes.queued(skip, this.settings.batchSize),
    ]);
    const found = [...messages, ...changes];
    // All the queue's messages of a ticket when the read was not cut short; otherwise the run reads them.
    const complete = messages.length < this.settings.batchSize && changes.length < this.settings.batchSize;
    for (const [ticketId, messages] of byTicket(found)) {
      if (this.busyTickets.size >= this.settings.concurrency) break;
      if (busy.has(ticketId) || this.busyTickets.has(ticketId) || this.waitingUntil.has(ticketId) || this.foreign.has(ticketId)) continue;
      const partition = this.leases.partitionOf(messages[0].channelId);
      if (!this.leases.holds(partition)) {
        this.foreign.add(ticketId);
        continue;
      }
      if (!this.leases.mayStart(partition, this.settings.attemptMs)) continue;
      this.startRun(messages[0].tenantId, ticketId, partition, complete ? messages : undefined);
    }
    return soonest;
  }

  private startRun(tenantId: number, ticketId: number, partition: number, known?: MessageDoc[]): void {
    this.busyTickets.add(ticketId);
    this.busyPartitions.set(partition, (this.busyPartitions.get(partition) ?? 0) + 1);
    const run = this.deliverInOrder(tenantId, ticketId, partition, known)
      .catch((err: unknown) => this.log.error({ err, ticketId }, 'delivery run failed'))
      .finally(() => {
        const full = this.busyTickets.size >= this.settings.concurrency;
        this.busyTickets.delete(ticketId);
        this.busyPartitions.set(partition, (this.busyPartitions.get(partition) ?? 1) - 1);
        this.runs.delete(run);
        if (full) this.wakeUp();
      });
    this.runs.add(run);
  }

  /**
   * A ticket's queued messages (as the round read them, or read now), one after another in
   * acceptance order; a message waiting for a retry holds back the rest (the ticket is not looked at
   * again before it is due). Messages accepted meanwhile are found by the next round.
   */
  private async deliverInOrder(tenantId: number, ticketId: number, partition: number, known?: MessageDoc[]): Promise<void> {
    const messages =
      known ??
      inAcceptanceOrder(
        ...(await Promise.all([
          this.repo.queuedOfTicket(tenantId, ticketId, RUN_LIMIT),
          this.repo.changes.queuedOfTicket(tenantId, ticketId, RUN_LIMIT),
        ])),
        RUN_LIMIT,
      );
    for (const message of messages) {
      if (!this.running) return;
      const due = message.nextAttemptAt?.getTime() ?? 0;
      if (due > Date.now()) {
        this.waitingUntil.set(ticketId, due);
        return;
      }
      await this.pace(message.channelId, await this.intervalOf(message));
      if (!this.running || !this.leases.mayStart(partition, this.settings.attemptMs)) return;
      if ((await this.attempt(message)) === 'retry') return;
    }
  }

  /** Waits for the channel's next free slot and takes it. */
  private async pace(channelId: number, intervalMs: number): Promise<void> {
    const now = Date.now();
    const slot = Math.max(now, this.nextSlot.get(channelId) ?? 0);
    this.nextSlot.set(channelId, slot + intervalMs);
    if (slot > now) await new Promise((resolve) => setTimeout(resolve, slot - now));
  }

  private async intervalOf(message: MessageDoc): Promise<number> {
    const channel = await this.peers.channels.find(message.tenantId, message.channelId).catch(() => null);
    if (channel && channel.sendIntervalMs !== undefined && channel.sendIntervalMs !== null) return channel.sendIntervalMs;
    return this.settings.intervalMs[channel?.type ?? ''] ?? 0;
  }

  /**
   * One delivery attempt of one message, recorded before it returns; traced as part of the request
   * that queued the message (its stored traceparent), down to the provider call.
   */
  attempt(message: MessageDoc): Promise<AttemptOutcome> {
    if (isChange(message)) return this.attemptChange(message);
    const attributes = { 'messaging.message.id': message._id, 'convo.ticket_id': message.ticketId, 'convo.channel_id': message.channelId };
    return inStoredTrace(message.traceparent, 'deliver message', attributes, () => this.attemptTraced(message));
  }

  private async attemptChange(doc: Parameters<ChangeDelivery['attempt']>[0]): Promise<AttemptOutcome> {
    const attributes = { 'convo.change_id': doc._id, 'convo.ticket_id': doc.ticketId, 'convo.channel_id': doc.channelId };
    const { outcome, retryAt } = await inStoredTrace(doc.traceparent, 'deliver change', attributes, () => this.changes.attempt(doc));
    if (retryAt) this.waitingUntil.set(doc.ticketId, retryAt);
    return outcome;
  }

  private async attemptTraced(message: MessageDoc): Promise<AttemptOutcome> {
    let channel: proto.tenants.Channel__Output | null;
    try {
      channel = await this.peers.channels.find(message.tenantId, message.channelId);
    } catch (err) {
      return this.failed(message, classify(err));
    }
    if (!channel) return this.failed(message, { transient: false, retryAfterMs: null, reason: 'the channel no longer exists' });
    const to = await addressAtDelivery(message, (tenantId, ticketId) => this.peers.contactOf(tenantId, ticketId), this.log);
    const route = await routeOf(message, channel, to, this.peers.channels);
    let providerMessageId: string;
    try {
      ({ providerMessageId } = await this.peers.engines.Deliver(
        {
          channel: channelTarget(route.through),
          to,
          content: {
            text: message.body,
            mediaUrl: message.mediaId ? this.peers.mediaLink(message.mediaId, message.fileName ?? '') : '',
            mimeType: message.mimeType ?? '',
            fileName: message.fileName ?? '',
            interactiveType: message.interactiveType ?? '',
            interactiveJson: message.interactiveJson ?? '',
            subject: message.subject ?? '',
            voice: message.voice ?? false,
          },
          reference: message._id,
        },
        { deadlineMs: this.settings.providerDeadlineMs },
      ));
    } catch (err) {
      if (isServiceError(err) && err.code === grpc.status.DEADLINE_EXCEEDED) {
        // channel-engines may have handed it to the provider meanwhile: sent again, it may arrive twice.
        this.log.warn(
          { messageId: message._id, ticketId: message.ticketId },
          'delivery unanswered within its deadline: the provider may have it',
        );
      }
      return this.failed(message, classify(err), route.via);
    }
    try {
      await this.recordSent(message, providerMessageId, route);
    } catch (err) {
      // Delivered, not recorded: kept here and recorded before this dispatcher sends anything else,
      // so the message is not sent again while this process lives.
      this.unrecorded.set(message._id, { doc: message, providerMessageId, route });
      throw err;
    }
    return 'sent';
  }

  private async recordSent(message: MessageDoc, providerMessageId: string, route: Route): Promise<void> {
    // A retried message clears its last error and due time; a first attempt has neither to clear.
    const cleared = message.error || message.nextAttemptAt ? { error: '', nextAttemptAt: null } : {};
    const way = { ...(route.via && { via: route.via }), ...(route.via === 'linked' && { viaChannelId: route.through.id }) };
    await this.repo.applyStatus(
      message,
      'sent',
      { providerMessageId, ...way, ...cleared },
      { exclusive: true, event: await this.listened(message) },
    );
  }

  private async flushUnrecorded(): Promise<void> {
    for (const [id, { doc, providerMessageId, route }] of this.unrecorded) {
      await this.recordSent(doc, providerMessageId, route);
      this.unrecorded.delete(id);
    }
  }

  private async failed(message: MessageDoc, failure: Failure, via?: string): Promise<AttemptOutcome> {
    const now = Date.now();
    const attempts = (message.attempts ?? 0) + 1;
    if (failure.transient && now - message.createdAt.getTime() < this.settings.retryWindowMs) {
      const delay = failure.retryAfterMs ?? backoffMs(attempts, this.settings.backoffBaseMs, this.settings.backoffMaxMs);
      await this.repo.reschedule(message, attempts, new Date(now + delay), failure.reason);
      this.waitingUntil.set(message.ticketId, now + delay);
      this.log.info({ messageId: message._id, attempts, retryInMs: delay, reason: failure.reason }, 'delivery will be retried');
      return 'retry';
    }
    await this.repo.applyStatus(
      message,
      'failed',
      { error: failure.reason, attempts, nextAttemptAt: null, ...(via && { via }) },
      { exclusive: true, event: await this.listened(message) },
    );
    this.log.warn({ messageId: message._id, ticketId: message.ticketId, reason: failure.reason }, 'message failed');
    return 'failed';
  }

  /**
   * Whether a `message.status` event has anyone to go to: an integration of the channel with a
   * status callback URL (asked of tenants, cached a few seconds). When tenants cannot say, the event
   * is written: an event nobody wants is cheaper than one lost.
   */
  private async listened(message: MessageDoc): Promise<boolean> {
    try {
      const integrations = await this.peers.integrations.of(message.tenantId, message.channelId);
      return !!integrations?.some((i) => i.urlMessageStatus);
    } catch {
      return true;
    }
  }
}
