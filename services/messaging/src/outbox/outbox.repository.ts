import { insertOnce } from '@convo/kit/claims';
import { groupCommit, perItemErrors } from '@convo/kit/group-commit';
import { anyOf, isDuplicateKey, onlyDuplicateKeys } from '@convo/kit/mongo';
import type { Connection } from 'mongoose';
import { groupByChannelAndStatus } from '../db/delivery-groups';
import { claimNextGeneration, generationId } from '../leases/generations';
import {
  registerOutboxModels,
  type AttemptDoc,
  type AttemptOutcome,
  type OutboxEventDoc,
  type OutboxModels,
  type OutboxStatus,
} from './outbox.models';

/** A claim held by one relay: the event is this relay's until `leaseUntil`. */
export interface Lease {
  attemptId: string;
  eventId: string;
  gen: number;
  leaseUntil: Date;
  /** The event as read once the claim was held. */
  event: OutboxEventDoc;
}

export interface AttemptResult {
  outcome: AttemptOutcome;
  url?: string;
  httpStatus?: number;
  durationMs?: number;
  error?: string;
  nextAttemptAt?: Date | null;
  /** The wait before `nextAttemptAt`: the backoff drawn, or the receiver's Retry-After. */
  delayMs?: number | null;
}

const attemptId = generationId;

/**
 * The durable outbox of customer webhooks (collection `outbox`) and its attempt log
 * (`outbox_attempts`), in the messaging database.
 *
 * Writers add events with deterministic ids, so writing one twice is a no-op. Relays take an event
 * by inserting an attempt document `<eventId>#<gen>` (leases/generations.ts, the claim mechanism
 * the dispatcher's partitions use too); the same document then records what the attempt did.
 */
export class OutboxRepository {
  private readonly models: OutboxModels;
  /**
   * Events are group-committed as accepted messages are (MessagesRepository): concurrent writers
   * share one insert command, each answered once its own event is stored (or found stored).
   */
  private readonly inserts = groupCommit<OutboxEventDoc, void>((docs) => this.insertAll(docs));

  constructor(conn: Connection) {
    this.models = registerOutboxModels(conn);
  }

  async init(): Promise<void> {
    await Promise.all(Object.values(this.models).map((m) => m.createIndexes()));
  }

  // ---- writers ------------------------------------------------------------------------------

  /** Inserts the event unless one with its id exists (with the events of concurrent writers); true when this call wrote it. */
  add(doc: OutboxEventDoc): Promise<boolean> {
    return insertOnce(() => this.inserts.write(doc));
  }

  /** One unordered insert; an event whose id is taken (in the database or earlier in the batch) fails alone. */
  private async insertAll(docs: readonly OutboxEventDoc[]): Promise<Array<Error | undefined>> {
    try {
      await this.models.Event.insertMany(docs, { lean: true, ordered: false });
      return docs.map(() => undefined);
    } catch (err) {
      return perItemErrors(docs.length, err);
    }
  }

  /** Children of a fanned-out event; those written already (a crashed fan-out) are kept as they are. */
  async addMany(docs: OutboxEventDoc[]): Promise<void> {
    if (!docs.length) return;
    try {
      await this.models.Event.insertMany(docs, { lean: true, ordered: false });
    } catch (err) {
      if (!onlyDuplicateKeys(err)) throw err;
    }
  }

  async exists(id: string): Promise<boolean> {
    return (await this.models.Event.exists({ _id: id }).exec()) !== null;
  }

  findEvent(id: string) {
    return this.models.Event.findById(id).lean<OutboxEventDoc>().exec();
  }

  // ---- relay ----------------------------------------------------------------------------------

  /**
   * Pending events whose next attempt is due, up to `limit`, in no particular order. FerretDB never
   * pushes a sort down: sorted, every round decoded every pending event (bodies and all) to keep
   * `limit` of them, a cost that grew with the backlog just when the relay was behind; unsorted, it
   * stops after `limit` matches. On MongoDB the index (status, nextAttemptAt) serves it, in due order.
   */
  due(now: Date, limit: number) {
    return this.models.Event.find({ status: 'pending', nextAttemptAt: { $lte: now } })
      .limit(limit)
      .lean<OutboxEventDoc[]>()
      .exec();
  }

  /** When the most overdue pending event fell due (metrics, at scrape time: one sorted read of its due time). */
  async oldestDue(now: Date): Promise<Date | null> {
    const oldest = await this.models.Event.findOne({ status: 'pending', nextAttemptAt: { $lte: now } }, { nextAttemptAt: 1 })
      .sort({ nextAttemptAt: 1 })
      .lean<Pick<OutboxEventDoc, 'nextAttemptAt'>>()
      .exec();
    return oldest?.nextAttemptAt ?? null;
  }

  /** How many events wait for delivery (metrics, at scrape time; the status index). */
  pendingCount(): Promise<number> {
    return this.models.Event.countDocuments({ status: 'pending' }).exec();
  }

  /**
   * Takes the event for `leaseMs`, or answers null when another relay holds it (or it is no longer
   * pending and due). Generation after generation from the last known one: a generation whose
   * attempt exists and is still live means someone else holds the event; a finished or expired one
   * is stepped over.
   */
  async claim(event: OutboxEventDoc, relayId: string, leaseMs: number): Promise<Lease | null> {
    let leaseUntil = new Date();
    const gen = await claimNextGeneration(
      {
        insert: (g) => {
          const now = new Date();
          leaseUntil = new Date(now.getTime() + leaseMs);
          return this.insertAttempt({ id: attemptId(event._id, g), eventId: event._id, gen: g, leaseUntil }, event.tenantId, relayId, now);
        },
        isLive: (g) => this.isLive(attemptId(event._id, g)),
      },
      event.gen,
    );
    if (gen === null) return null;
    const id = attemptId(event._id, gen);
    const now = new Date();
    // The first generation of an event read with none: no relay has held it, and only a holder
    // changes a pending event, so it is still as read (no second read).
    const first = gen === 1 && !event.gen;
    // Otherwise the event may have been finished by the holder of the previous generation
    // meanwhile: it writes the event before finishing its attempt, so this read sees that.
    const fresh = first ? event : await this.findEvent(event._id);
    if (!fresh || fresh.status !== 'pending' || fresh.nextAttemptAt > now) {
      await this.models.Attempt.deleteOne({ _id: id, relayId }).exec();
      return null;
    }
    await this.models.Event.updateOne({ _id: event._id }, { $set: { gen, updatedAt: now } }).exec();
    return { attemptId: id, eventId: event._id, gen, leaseUntil, event: { ...fresh, gen } };
  }

  /** An attempt that has not finished and whose lease has not run out: its relay holds the event. */
  private async isLive(id: string): Promise<boolean> {
    const attempt = await this.models.Attempt.findById(id, { finishedAt: 1, leaseUntil: 1 }).lean<AttemptDoc>().exec();
    return !!attempt && !attempt.finishedAt && attempt.leaseUntil > new Date();
  }

  private async insertAttempt(
    lease: { id: string; eventId: string; gen: number; leaseUntil: Date },
    tenantId: number,
    relayId: string,
    now: Date,
  ): Promise<boolean> {
    const doc: AttemptDoc = {
      _id: lease.id,
      eventId: lease.eventId,
      tenantId,
      gen: lease.gen,
      relayId,
      startedAt: now,
      leaseUntil: lease.leaseUntil,
      finishedAt: null,
      outcome: null,
      url: '',
      httpStatus: 0,
      durationMs: 0,
      error: '',
      nextAttemptAt: null,
      delayMs: null,
    };
    try {
      await this.models.Attempt.insertMany([doc], { lean: true });
      return true;
    } catch (err) {
      if (isDuplicateKey(err)) return false;
      throw err;
    }
  }

  /** The holder records its attempt on the event: always before finishing the attempt itself. */
  async updateEvent(
    id: string,
    set: Partial<Pick<OutboxEventDoc, 'status' | 'attempts' | 'nextAttemptAt' | 'lastError' | 'lastHttpStatus' | 'finishedAt'>>,
  ) {
    await this.models.Event.updateOne({ _id: id }, { $set: { ...set, updatedAt: new Date() } }).exec();
  }

  /** `finishedAt`: the clock reading the holder decided the outcome on (its `nextAttemptAt` counts from it). */
  async finishAttempt(lease: Lease, result: AttemptResult, finishedAt = new Date()): Promise<void> {
    await this.models.Attempt.updateOne(
      { _id: lease.attemptId },
      { $set: { ...result, nextAttemptAt: result.nextAttemptAt ?? null, delayMs: result.delayMs ?? null, finishedAt } },
    ).exec();
  }

  /** Graceful shutdown: the event stays as it was and is due again for any relay. */
  async release(lease: Lease): Promise<void> {
    await this.finishAttempt(lease, { outcome: 'released' });
  }

  /** Finished events (and their attempts) older than `before`: FerretDB has no TTL indexes. */
  async prune(before: Date): Promise<number> {
    const old = await this.models.Event.find({ finishedAt: { $ne: null, $lt: before } }, { _id: 1 })
      .limit(1_000)
      .lean<Array<{ _id: string }>>()
      .exec();
    if (!old.length) return 0;
    const ids = old.map((e) => e._id);
    await this.models.Attempt.deleteMany({ eventId: { $in: ids } }).exec();
    await this.models.Event.deleteMany({ _id: { $in: ids } }).exec();
    return ids.length;
  }

  // ---- inspection -------------------------------------------------------------------------------

  list(filter: { tenantId: number; status?: OutboxStatus; channelId?: number }, limit: number) {
    const query: Record<string, unknown> = { tenantId: filter.tenantId };
    if (filter.status) query.status = filter.status;
    if (filter.channelId) query.channelId = filter.channelId;
    return this.models.Event.find(query).sort({ createdAt: -1, _id: -1 }).limit(limit).lean<OutboxEventDoc[]>().exec();
  }

  findForTenant(tenantId: number, id: string) {
    return this.models.Event.findOne({ _id: id, tenantId }).lean<OutboxEventDoc>().exec();
  }

  /** A tenant's pending and dead events per channel, with the oldest of each. */
  deliveryGroups(tenantId: number) {
    return groupByChannelAndStatus(this.models.Event, tenantId, ['pending', 'dead']);
  }

  /**
   * A dead event goes back to pending, due now: the relay makes one more attempt (and, failing,
   * it is dead again, its retry window being over). Only a dead event of the tenant; null otherwise.
   */
  replayDead(tenantId: number, id: string) {
    const now = new Date();
    return this.models.Event.findOneAndUpdate(
      { _id: id, tenantId, status: 'dead' },
      { $set: { status: 'pending', nextAttemptAt: now, finishedAt: null, updatedAt: now } },
      { new: true },
    )
      .lean<OutboxEventDoc>()
      .exec();
  }

  attemptsOf(eventId: string) {
    return this.attemptsOfEvents([eventId]);
  }

  /** Every attempt of these events by event, oldest first: index (eventId, gen). */
  attemptsOfEvents(eventIds: readonly string[]) {
    return this.models.Attempt.find({ eventId: anyOf(eventIds) })
      .sort({ eventId: 1, gen: 1 })
      .lean<AttemptDoc[]>()
      .exec();
  }
}
